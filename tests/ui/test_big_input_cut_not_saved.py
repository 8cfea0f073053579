"""In the REPL, a paste the server refuses (its window smaller than the one given) is cut to that
window and its whole text saved beside the session; when that file cannot be written (a folder
made read-only, a full disk), the user is told in one plain line and the prompt is compacted as
before, the whole paste in the archive taken before the compaction."""

from __future__ import annotations

import errno
import json
from pathlib import Path

import pytest

from compact_agent.agent.run import big_input
from tests.e2e.scripted import is_summary_request
from tests.fakes.openai_server import FakeOpenAIServer, Reply

from .repl_driver import drive, pasted

QUESTION = "which entry is the odd one out? (QUESTION-AT-THE-END)"
PASTE = " ".join(f"entry-{i}" for i in range(3_000)) + " " + QUESTION  # ~7K tokens: one line
LINE = "could not save the large input beside the session"


def answer(req) -> Reply:
    if is_summary_request(req):
        return Reply.text("<summary>1. Primary Request and Intent: a list of entries.</summary>")
    return Reply.text("ANSWERED")


def read_only(path: Path, text: str, point: str) -> None:
    """The session's folder read-only (as root, chmod would not stop the write: the failure is given)."""
    raise PermissionError(errno.EACCES, "Permission denied", str(path))


async def test_an_input_that_cannot_be_saved_is_said_once_and_compacted_whole(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(big_input, "write_private", read_only)
    with FakeOpenAIServer(answer, window=8_000, overflow="llama.cpp") as server:
        run = await drive(tmp_path, answer, [pasted(PASTE) + "\r"], server=server, context_window=32_000)
    assert len(server.rejected) == 1 and "ANSWERED" in run.out, run.out
    said = [line for line in run.out.splitlines() if LINE in line]
    assert len(said) == 1 and "); it is compacted instead" in " ".join(run.out.split()), run.out  # wrapped
    assert "compacted (reactive" in run.out
    assert "Traceback" not in run.out and "Error" not in run.out, run.out
    archives = list((tmp_path / "home" / "projects").glob("*/compact-history/*.jsonl"))
    held = [json.loads(line) for a in archives for line in a.read_text().splitlines()]
    assert [p.get("content") for e in held if e["kind"] == "message" for p in e["message"]["parts"]
            if p.get("part_kind") == "user-prompt"] == [PASTE]  # nothing lost: the paste, whole
