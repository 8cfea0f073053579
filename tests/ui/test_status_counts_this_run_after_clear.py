"""/status's `N since this run began` counts what this run compacted of the session also when the
REPL left it and came back (`/clear`, then `/resume` to it): reopened, its count started again at
0 and said `1 in the whole session (0 since this run began)` of a compaction made minutes before."""

from __future__ import annotations

from pathlib import Path

from tests.e2e.scripted import is_notes_request, is_summary_request
from tests.fakes.openai_server import Reply

from .repl_driver import drive


def answer(req) -> Reply:
    if is_summary_request(req):
        return Reply.text("<summary>1. Primary Request and Intent: the questions so far</summary>")
    if is_notes_request(req):
        return Reply.text("")
    return Reply.text("ok " * 1500)


async def test_a_session_left_and_resumed_keeps_this_run_s_compactions(tmp_path: Path) -> None:
    run = await drive(tmp_path, answer, ["one\r", "two\r", "/compact\r", "/status\r", "/clear\r", "/status\r",
                                         "/resume 1\r", "/status\r"])
    said = [" ".join(line.split()) for line in run.out.splitlines() if line.startswith("compactions")]
    assert [s.split(" auto-")[0] for s in said] == [
        "compactions 1 in the whole session (1 since this run began)",
        "compactions 0 in the whole session (0 since this run began)",  # the new session /clear began
        "compactions 1 in the whole session (1 since this run began)"], said
