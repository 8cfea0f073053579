"""A long session keeps memory and per-request state bounded by what the kept context needs.

The soak (benchmarks/soak.py, 1,000 requests) measures it; this is the quick guard: after many
turns and compactions, nothing the agent holds in memory or re-saves on every request still refers
to messages that compaction dropped.
"""

from __future__ import annotations

import gc
from pathlib import Path

from compact_agent.config import Settings
from compact_agent.context.compaction import notes_state
from compact_agent.context.layers import collapse
from compact_agent.context.plumbing import tokens
from tests.fakes.openai_server import FakeOpenAIServer

from .common import session
from .drive import TurnsAgent, turn_prompt
from .harness import make_project


async def test_memory_and_layer_state_do_not_grow_with_the_session(tmp_path: Path) -> None:
    cwd = tmp_path / "project"
    make_project(cwd, 10)
    settings = Settings(collapse_commit_fraction=0.5, tool_result_max_chars=7_000, memory_enabled=True,
                        adaptive_output_reserve=False, priced_compaction=False,
                        tool_result_room_share=1.0)
    sizes: list[tuple[int, int, int]] = []
    with FakeOpenAIServer(TurnsAgent()) as server:
        s = session(tmp_path / "home", cwd, server, settings=settings)
        for k in range(16):
            await s.run_turn(turn_prompt(k, [2 * k % 10, (2 * k + 1) % 10]))
            gc.collect()
            state = s.store.dir / "layers.json"
            sizes.append((len(tokens._memo), len(collapse._key_memo), state.stat().st_size if state.exists() else 0))
        layer = next(x for x in s.cm.layers if x.name == "collapse")
        commits_made = sum(1 for e in s.store.event_log.read() if e.get("layer") == "collapse" and e.get("action") == "commit")
        await s.aclose()
    assert len(s.cm.compactions) >= 4, "the test needs compactions"
    # Old compaction results no longer hold their histories (the archive has them).
    assert all(not r.messages and not r.summary for r in s.cm.compactions[:-1])
    assert s.cm.compactions[-1].messages
    # Collapse commits whose messages are gone are forgotten, not re-projected and re-saved forever.
    assert commits_made > len(layer.commits)
    # The memos hold what is alive: the second half of the session needs no more than the first.
    first, second = sizes[: len(sizes) // 2], sizes[len(sizes) // 2 :]
    for i in range(3):
        assert max(x[i] for x in second) <= 1.5 * max(x[i] for x in first) + 50, (i, sizes)
    assert len(notes_state._fp_memo) < 1_000
