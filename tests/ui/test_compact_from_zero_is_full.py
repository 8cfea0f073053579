"""`/compact --from 0` keeps no message before its summary: it summarises the whole conversation
(the last answer aside, as any compaction keeps its newest messages), and is said and recorded as
a full compaction: the line after it, /history and the session file's boundary. It was
`partial_from`, which keeps a conversation's start."""

from __future__ import annotations

from pathlib import Path

from compact_agent.session.store import load_session_file
from tests.e2e.scripted import is_notes_request, is_summary_request
from tests.fakes.openai_server import Reply

from .repl_driver import drive


def answer(req) -> Reply:
    if is_summary_request(req):
        return Reply.text("<summary>1. Primary Request and Intent: the whole conversation</summary>")
    if is_notes_request(req):
        return Reply.text("")
    return Reply.text("ok " * 1500)


def sessions(tmp: Path) -> list:
    return [load_session_file(f) for f in sorted((tmp / "home" / "projects").glob("*/*.jsonl"))]


async def test_from_zero_is_a_full_compaction(tmp_path: Path) -> None:
    run = await drive(tmp_path, answer, ["one\r", "two\r", "three\r", "/compact --from 0\r", "/history\r"])
    out = " ".join(run.out.split())
    assert "compacted (manual, full): " in out and "compaction (manual, full) " in out, out[-2000:]
    assert "partial_from" not in out
    [session] = sessions(tmp_path)
    [boundary] = session.boundaries
    assert boundary.strategy == "full"
    assert session.messages[0].metadata["compact_agent"]["strategy"] == "full"  # the summary message's own


async def test_from_two_still_keeps_the_start(tmp_path: Path) -> None:
    run = await drive(tmp_path, answer, ["one\r", "two\r", "three\r", "/compact --from 2\r"])
    assert "compacted (manual, partial_from): " in " ".join(run.out.split())
    [session] = sessions(tmp_path)
    assert [b.strategy for b in session.boundaries] == ["partial_from"]
