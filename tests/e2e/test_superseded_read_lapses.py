"""A read of a file the model read again, unchanged, goes out as "[superseded by a later read of the
same unchanged file]" (layers/snip.py) only while that later read is in the conversation.

The mark was frozen by call id and re-applied on every later request, also once the later read had
left: summarised away by `/compact --from N`, which kept the earlier read verbatim in its head, or
undone by `/rewind`, or so in a session resumed after either. The file's content was then nowhere
in the request, and the model was told of a read it could not see."""

from __future__ import annotations

import json
from pathlib import Path

from compact_agent.agent.run.options import SessionOptions
from compact_agent.agent.run.runner import AgentSession
from compact_agent.config import Settings
from compact_agent.context.layers.snip import SUPERSEDED
from tests.fakes.openai_server import ChatRequest, FakeOpenAIServer, Reply, message_text

from .scripted import is_notes_request, is_summary_request

NOTES = "".join(f"line {i}: the notes say something worth reading\n" for i in range(40))
WORDS = " lorem ipsum dolor sit amet" * 150  # answers long enough for /compact --from to be worth it


def reader(req: ChatRequest) -> Reply:
    """`read F` reads F, then answers; anything else is answered at length."""
    if is_summary_request(req):
        return Reply.text("<summary>1. Primary Request and Intent: notes.txt was read, twice.</summary>")
    if is_notes_request(req):
        return Reply.text("")
    asked = max(i for i, m in enumerate(req.messages) if m.get("role") == "user")
    words = message_text(req.messages[asked]).split()
    if words[0] == "read" and not any(m.get("role") == "tool" for m in req.messages[asked:]):
        return Reply.tools([("read_file", {"path": words[1]})])
    return Reply.text("DONE " + " ".join(words) + WORDS)


def session(tmp_path: Path, server: FakeOpenAIServer, *, resume: bool = False) -> AgentSession:
    cwd = tmp_path / "project"
    cwd.mkdir(exist_ok=True)
    (cwd / "notes.txt").write_text(NOTES)
    return AgentSession(SessionOptions(cwd=cwd, model="fake-model", base_url=server.base_url, api_key="k",
                                       permission_mode="yes", home=tmp_path / "home", continue_last=resume,
                                       settings=Settings(memory_enabled=False)))


def reads(req: ChatRequest) -> list[str]:
    """What each read_file result of the request says, in order."""
    ids = {c["id"] for m in req.messages if m.get("role") == "assistant" for c in m.get("tool_calls") or []
           if c["function"]["name"] == "read_file"}
    return [message_text(m) for m in req.messages if m.get("role") == "tool" and m.get("tool_call_id") in ids]


def whole(text: str) -> bool:
    return "line 0:" in text and "line 39:" in text


async def twice_read(s: AgentSession, server: FakeOpenAIServer) -> None:
    """notes.txt read in the first turn and again, unchanged, in the third: the first read is
    superseded on the requests after."""
    await s.run_turn("read notes.txt")
    await s.run_turn("talk one")
    await s.run_turn("read notes.txt")
    await s.run_turn("talk two")
    await s.run_turn("talk three")
    first, later = reads(server.requests[-1])
    assert first == SUPERSEDED and whole(later), (first[:80], later[:80])


async def test_compact_from_after_the_earlier_read_sends_it_whole(tmp_path: Path) -> None:
    """`/compact --from 4` keeps the first turn (the earlier read) verbatim and summarises the later
    read away: the earlier read is the file's only copy, and goes out whole, also after a resume."""
    with FakeOpenAIServer(reader) as server:
        s = session(tmp_path, server)
        try:
            await twice_read(s, server)
            result = await s.compact(pivot=4, direction="from")
            assert result.strategy == "partial_from", result.strategy
            await s.run_turn("talk four")
        finally:
            s.close()
        assert [whole(r) for r in reads(server.requests[-1])] == [True], reads(server.requests[-1])
        s = session(tmp_path, server, resume=True)
        try:
            await s.run_turn("talk five")
        finally:
            s.close()
    assert [whole(r) for r in reads(server.requests[-1])] == [True], reads(server.requests[-1])
    saved = json.loads((s.store.dir / "layers.json").read_text())  # the decisions a next run re-applies
    assert "superseded_read" not in json.dumps(saved["snip"]), saved["snip"]


async def test_a_rewind_that_undoes_the_later_read_sends_the_earlier_whole(tmp_path: Path) -> None:
    """`/rewind 2` undoes the turn of the later read: the earlier read, in the turns kept, goes out
    whole on every request after, also after a resume."""
    with FakeOpenAIServer(reader) as server:
        s = session(tmp_path, server)
        try:
            await twice_read(s, server)
            s.rewind(2)
            await s.run_turn("talk after the rewind")
            assert [whole(r) for r in reads(server.requests[-1])] == [True], reads(server.requests[-1])
            await s.run_turn("talk once more")
        finally:
            s.close()
        assert [whole(r) for r in reads(server.requests[-1])] == [True], reads(server.requests[-1])
        s = session(tmp_path, server, resume=True)
        try:
            await s.run_turn("talk after the resume")
        finally:
            s.close()
    assert [whole(r) for r in reads(server.requests[-1])] == [True], reads(server.requests[-1])


async def test_the_mark_stays_while_the_later_read_is_there(tmp_path: Path) -> None:
    """A rewind that keeps both reads keeps the mark: it lapses only with the later read."""
    with FakeOpenAIServer(reader) as server:
        s = session(tmp_path, server)
        try:
            await twice_read(s, server)
            s.rewind(4)
            await s.run_turn("talk after the rewind")
        finally:
            s.close()
    first, later = reads(server.requests[-1])
    assert first == SUPERSEDED and whole(later), (first[:80], later[:80])
