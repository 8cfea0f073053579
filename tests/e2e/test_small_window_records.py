"""Records appended to a kept compaction message must not fill a small window's room.

A compaction that keeps a record appended it to the compaction message it started with, always:
the message stayed a cache hit, but the framing of every update stayed with it. In a 16K window,
reading forty 6,000-character files three times over, the history right after a compaction grew
from 3K to past the threshold, and from then on every request compacted (47 compactions in 123
requests, 33 of them escalated by the thrash guard, each archiving the whole transcript). Keeping
the message is now priced as for a summary, and not chosen where it would have the window force
the next compaction within the thrash guard's requests.
"""

from __future__ import annotations

import json
from pathlib import Path

from compact_agent.agent.run.options import SessionOptions
from compact_agent.agent.run.runner import AgentSession
from compact_agent.config import Settings
from tests.e2e.scripted import FileTaskAgent, is_notes_request, is_summary_request
from tests.fakes.openai_server import FakeOpenAIServer, Reply, message_text

FILES = 40


def reader() -> object:
    summaries = FileTaskAgent(n=FILES)
    state: dict[str, int | None] = {"next": None}

    def respond(req: object) -> Reply:
        if is_summary_request(req) or is_notes_request(req):
            return summaries(req)
        last = req.messages[-1]  # type: ignore[attr-defined]
        if last.get("role") == "user" and message_text(last).startswith("READALL"):
            state["next"] = 0
        at = state["next"]
        if at is not None and last.get("role") in ("tool", "user"):
            if at < FILES:
                state["next"] = at + 1
                return Reply.tools([("read_file", {"path": f"data/file_{at:02d}.txt"})], content=f"reading file {at}")
            state["next"] = None
            return Reply.text("Read the files.")
        return Reply.text("ok")
    return respond


async def test_records_do_not_make_every_request_compact_in_a_16k_window(tmp_path: Path) -> None:
    cwd, home = tmp_path / "project", tmp_path / "home"
    (cwd / "data").mkdir(parents=True)
    for i in range(FILES):
        lines = "".join(f"line {k} of file {i}: lorem ipsum dolor sit amet consectetur\n" for k in range(100))
        (cwd / "data" / f"file_{i:02d}.txt").write_text(lines[:6_000])
    with FakeOpenAIServer(reader(), window=16_000) as server:
        session = AgentSession(SessionOptions(cwd=cwd, model="fake-model", base_url=server.base_url, api_key="k",
                                              context_window=16_000, permission_mode="yes", home=home,
                                              settings=Settings()))
        try:
            for _ in range(3):
                await session.run_turn(f"READALL 0-{FILES - 1}")
            compactions, threshold = session.cm.compactions, session.cm.limits.threshold
        finally:
            await session.aclose()
        requests, rejected = len(server.requests), len(server.rejected)
    events = [json.loads(line) for p in home.rglob("events.jsonl") for line in p.read_text().splitlines()]
    escalations = [e for e in events if e.get("layer") == "thrash"]
    assert requests >= 120 and rejected == 0
    assert len(compactions) <= requests // 3, (len(compactions), requests)
    assert len(escalations) <= 5, len(escalations)
    # Right after each compaction the history leaves room for a few requests' growth (a file, ~1.7K).
    assert max(c.tokens_after for c in compactions) < threshold - 3 * 1_500
