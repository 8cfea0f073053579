"""After `/rewind N` the files the model had read when turn N began count as read again, as they
were then: the conversation it goes back to shows those reads, and the rewind put the files back.

Before, a rewind kept the reads of the turns it undid and lost those of the files it put back (their
changed time no longer matched): the model's first edit of a file its conversation showed it reading
was refused, 'File changed on disk since it was read' (or, after a rewind to a turn before a
compaction, 'File has not been read yet'), and it had to read the file again. The reads of the turns
undone, which the conversation no longer shows, go; a file changed by hand since is still refused."""

from __future__ import annotations

from pathlib import Path

from compact_agent.agent.run.options import SessionOptions
from compact_agent.agent.run.runner import AgentSession
from compact_agent.config import Settings
from tests.fakes.openai_server import ChatRequest, FakeOpenAIServer, Reply, message_text

from .scripted import is_notes_request, is_summary_request

WORDS = " lorem ipsum dolor sit amet" * 120  # answers long enough for /compact to be worth it


def editor(req: ChatRequest) -> Reply:
    """`write F W` reads F, then writes W in it; `read F` reads it; `edit F OLD NEW` edits F without
    reading it first, as a model that sees its text in the conversation does."""
    if is_summary_request(req):
        return Reply.text("<summary>1. Primary Request and Intent: files were written.</summary>")
    if is_notes_request(req):
        return Reply.text("")
    users = [message_text(m) for m in req.messages if m.get("role") == "user"]
    asked = max(i for i, m in enumerate(req.messages) if m.get("role") == "user")
    results = [message_text(m) for m in req.messages[asked:] if m.get("role") == "tool"]
    words = users[-1].split()
    if words[0] == "write" and len(results) < 2:
        return Reply.tools([("read_file", {"path": words[1]})] if not results else
                           [("write_file", {"path": words[1], "content": words[2] + "\n"})])
    if words[0] == "read" and not results:
        return Reply.tools([("read_file", {"path": words[1]})])
    if words[0] == "edit" and not results:
        return Reply.tools([("edit_file", {"path": words[1], "old_string": words[2], "new_string": words[3]})])
    return Reply.text("DONE: " + (results[-1] if results else users[-1]) + WORDS)


def session(tmp_path: Path, server: FakeOpenAIServer) -> AgentSession:
    cwd = tmp_path / "project"
    cwd.mkdir(exist_ok=True)
    for name in ("a.txt", "b.txt"):
        (cwd / name).write_text("zero\n")
    return AgentSession(SessionOptions(cwd=cwd, model="fake-model", base_url=server.base_url, api_key="k",
                                       permission_mode="yes", home=tmp_path / "home",
                                       settings=Settings(memory_enabled=False)))


async def test_a_file_read_before_the_turn_rewound_to_can_be_edited(tmp_path: Path) -> None:
    with FakeOpenAIServer(editor) as server:
        s = session(tmp_path, server)
        try:
            await s.run_turn("write a.txt one")
            await s.run_turn("write a.txt two")
            s.rewind(1)  # a.txt back at "one", which the model wrote and saw
            out = (await s.run_turn("edit a.txt one uno")).output
            assert (s.cwd / "a.txt").read_text() == "uno\n", out
        finally:
            s.close()


async def test_so_can_one_after_a_rewind_to_a_turn_before_a_compaction(tmp_path: Path) -> None:
    with FakeOpenAIServer(editor) as server:
        s = session(tmp_path, server)
        try:
            await s.run_turn("write a.txt one")
            await s.run_turn("write a.txt two")
            await s.compact()
            await s.run_turn("write a.txt three")
            assert "the compaction is undone" in s.rewind(1).conversation
            out = (await s.run_turn("edit a.txt one uno")).output
            assert (s.cwd / "a.txt").read_text() == "uno\n", out
        finally:
            s.close()


async def test_a_read_the_rewind_undid_or_a_file_changed_by_hand_since_must_be_read_again(tmp_path: Path) -> None:
    with FakeOpenAIServer(editor) as server:
        s = session(tmp_path, server)
        try:
            await s.run_turn("write a.txt one")
            await s.run_turn("read b.txt")  # undone below: the conversation will not show this read
            s.rewind(1)
            out = (await s.run_turn("edit b.txt zero nil")).output
            assert (s.cwd / "b.txt").read_text() == "zero\n" and "has not been read" in out, out
            await s.run_turn("what now")
            (s.cwd / "a.txt").write_text("one, by hand\n")  # not a file the rewind puts back
            s.rewind(1)
            out = (await s.run_turn("edit a.txt one uno")).output
            assert (s.cwd / "a.txt").read_text() == "one, by hand\n" and "changed on disk" in out, out
        finally:
            s.close()


async def test_a_file_put_back_as_someone_changed_it_after_the_read_must_be_read_again(tmp_path: Path) -> None:
    """The version a rewind puts back is the file as it was before the model's first change of it
    after the turn rewound to, which a hand's change before that is part of: not what the model read."""
    with FakeOpenAIServer(editor) as server:
        s = session(tmp_path, server)
        try:
            await s.run_turn("write a.txt one")
            await s.run_turn("what now")
            (s.cwd / "a.txt").write_text("one, by hand\n")
            await s.run_turn("write a.txt two")  # keeps a.txt as the hand left it, for a rewind
            s.rewind(1)
            assert (s.cwd / "a.txt").read_text() == "one, by hand\n"
            out = (await s.run_turn("edit a.txt one uno")).output
            assert (s.cwd / "a.txt").read_text() == "one, by hand\n" and "has not been read" in out, out
        finally:
            s.close()
