"""`/history` lists a `/rewind` with the time it was made, as it lists a compaction: the rewind's
record is written with the store's clock (it had no time, and its line began with sixteen blanks),
also after the session is resumed, and in the order things happened."""

from __future__ import annotations

from compact_agent.ui import render
from tests.fakes.openai_server import FakeOpenAIServer

from .test_commands_terminal import answer, session, show

REWOUND_AT = "2026-03-04T05:06:07+00:00"


def listed(out: str) -> list[str]:
    """The boundary lines of `/history` (time, then what), without the archive lines under them."""
    head = out[:out.index("messages (")]
    return [line for line in head.splitlines() if line.rstrip().endswith(("rewind", "tokens"))]


async def test_history_shows_when_a_rewind_was_made_also_after_a_resume(tmp_path):
    with FakeOpenAIServer(answer) as server:
        s = session(tmp_path, server)
        try:
            for q in ("turn a", "turn b", "turn c"):
                await s.run_turn(q)
            await s.compact()
            await s.run_turn("turn d")
            await s.run_turn("turn e")
            s.store._clock = lambda: REWOUND_AT
            s.rewind(1)
            live = listed(await show(s, "/history"))
        finally:
            s.close()
        resumed = session(tmp_path, server, continue_last=True)
        try:
            again = listed(await show(resumed, "/history"))
        finally:
            resumed.close()
    for lines in (live, again):
        assert len(lines) == 2, lines
        compaction, rewind = lines
        assert "compaction (manual" in compaction and not compaction.startswith(" "), lines
        assert rewind == f"{render.when(REWOUND_AT):<16}  rewind", lines
