"""Checkpoints follow every rewrite of the session's history, not only compactions.

A checkpoint says where the conversation stood when its turn began (a number of messages). A
compaction moves the checkpoints into its archive; the other rewrites did not move them: a history
a program using the library edited (an answer asked for again, a branch from an earlier point),
in this process or between two runs, left a checkpoint of a turn no longer in the conversation
pointing at whatever message now had its number, and `/rewind` to it cut the new conversation there
while it put the files back as they were before the old turn. Each checkpoint now knows the
message before it: one whose message is elsewhere is moved there, one whose message is gone is
dropped (its saved files go to the turn before it, so a rewind there still puts them back), and
the user is told. A prompt cut to a server's window rewrites the session too, and moves nothing.
"""

from __future__ import annotations

from pathlib import Path

from pydantic_ai.messages import ModelRequest, ModelResponse, TextPart, UserPromptPart

from compact_agent.agent.run.runner import AgentSession
from compact_agent.agent.run.stream_events import problem_line
from compact_agent.agent.tools.checkpoints import Checkpoints
from compact_agent.context.refit import cut_boundary
from compact_agent.session.store import SessionStore
from tests.e2e.test_rewind_after_compaction import editor, prompts, session
from tests.fakes.openai_server import FakeOpenAIServer, Reply


async def three_writes(s: AgentSession) -> Path:
    hello = s.cwd / "hello.txt"
    hello.write_text("zero\n")
    for word in ("one", "two", "three"):
        await s.run_turn(f"write {word}")
    return hello


async def test_a_branch_in_this_process_drops_the_checkpoints_of_the_turns_it_left(tmp_path):
    """A program using the session's agent goes on from after "write one" (a branch): the store is
    rewritten at its first request, and the checkpoint of "write three" has no place any more."""
    with FakeOpenAIServer(editor) as server:
        s = session(tmp_path, server)
        events: list = []
        s._user_on_event = events.append
        try:
            hello = await three_writes(s)
            after_one = s.checkpoints.list()[1].history_len
            result = await s.agent.run("write four", message_history=s.messages[:after_one])
            s.messages = result.all_messages()
            assert [c.prompt for c in s.checkpoints.list()] == ["write one", "write two"]
            said = [problem_line(e) for e in events if e.layer == "checkpoints"]  # shown as the REPL shows it
            assert said == ["/rewind: the conversation was changed from an earlier point (an answer asked for "
                            "again, or a branch): 1 checkpoint (“write three”) no longer has its place in it and "
                            "was dropped; a rewind to an earlier turn still puts back the files it saved"], said
            assert hello.read_text() == "four\n"
            s.rewind(1)  # "write two" began where the branch did; the file as it was then
            assert prompts(s.messages) == ["write one"] and hello.read_text() == "one\n"
            back = s.rewind(0)
            assert prompts(s.messages) == [] and hello.read_text() == "zero\n" and back.lost == ""
        finally:
            s.close()


def test_a_checkpoint_dropped_gives_its_files_to_the_one_before(tmp_path):
    """The dropped checkpoint saved b.txt, which no earlier one had: a rewind to the turn before
    it still puts b.txt back; a file the earlier one saved keeps the earlier version."""
    a, b = tmp_path / "a.txt", tmp_path / "b.txt"
    a.write_text("a0")
    b.write_text("b0")
    first, second = (ModelResponse(parts=[TextPart(t)], provider_response_id=t) for t in ("first", "second"))
    cps = Checkpoints(tmp_path / "store")
    cps.begin(0, 0, "one")
    cps.before_write(a)
    a.write_text("a1")
    cps.begin(1, 1, "two", first)
    cps.before_write(a)
    cps.before_write(b)
    a.write_text("a2")
    b.write_text("b2")
    dropped, gone = cps.follow([second])  # the message before "two" is gone
    assert [c.prompt for c in dropped] == ["two"] and not gone
    assert [c.prompt for c in cps.list()] == ["one"]
    cps.rewind(0)
    assert a.read_text() == "a0" and b.read_text() == "b0"


async def test_a_history_edited_between_two_runs_is_followed_when_the_session_opens(tmp_path):
    with FakeOpenAIServer(editor) as server:
        s = session(tmp_path, server)
        try:
            hello = await three_writes(s)
            kept = s.checkpoints.list()[2].history_len  # up to before "write three"
            root, sid, messages = s.store.root, s.session_id, list(s.messages)
        finally:
            s.close()
        # A program using the library asked for the answer to "write two" again: the session ends there.
        library = SessionStore(root, sid)
        library.lock()
        archive = library.archive()
        again = [*messages[:kept - 1], ModelResponse(parts=[TextPart("written again")])]
        library.rewrite({"trigger": "history_changed", "strategy": "replace", "tokens_before": 0, "tokens_after": 0,
                         "archive": str(archive), "time": ""}, again)
        library.unlock()
        s = session(tmp_path, server, session_id=sid)
        try:
            assert [c.prompt for c in s.checkpoints.list()] == ["write one", "write two"]
            assert any("“write three”) no longer has its place in it and was dropped" in w for w in s.warnings), \
                s.warnings
            s.rewind(1)
            assert prompts(s.messages) == ["write one"] and hello.read_text() == "one\n"
        finally:
            s.close()


async def test_a_resumed_session_that_attached_a_file_rewinds_to_the_right_message(tmp_path):
    """A turn with `@notes.txt` is saved as the attachment's results and the prompt, two requests
    that pydantic-ai merges when the next turn hands the history back: the checkpoints of the turns
    after it counted one message fewer than the session holds. Resumed, a rewind to the last turn
    cut the conversation inside the turn before it (its prompt kept, its answer gone)."""
    with FakeOpenAIServer(lambda req: Reply.text("ok")) as server:
        s = session(tmp_path, server)
        try:
            (s.cwd / "notes.txt").write_text("hello\n")
            for said in ("hello there", "look at @notes.txt", "and now something else", "and more"):
                await s.run_turn(said)
            sid = s.session_id
        finally:
            s.close()
        s = session(tmp_path, server, session_id=sid)
        try:
            s.rewind(3)
            assert prompts(s.messages) == ["hello there", "look at @notes.txt", "and now something else"]
            assert isinstance(s.messages[-1], ModelResponse) and s.warnings == []  # that turn's answer is kept
        finally:
            s.close()


async def test_a_message_that_moved_takes_its_checkpoint_with_it(tmp_path):
    """A rewrite that put a message before the turns (a note the library added): each checkpoint
    points one message further, at the same message as before."""
    with FakeOpenAIServer(editor) as server:
        s = session(tmp_path, server)
        try:
            await three_writes(s)
            before = [c.history_len for c in s.checkpoints.list()]
            note = ModelRequest(parts=[UserPromptPart("a note")])
            reply = ModelResponse(parts=[TextPart("noted")])
            s.store.archive()
            s.store.rewrite({"trigger": "history_changed", "strategy": "replace", "tokens_before": 0,
                             "tokens_after": 0, "archive": "", "time": ""}, [note, reply, *s.messages])
            assert [c.history_len for c in s.checkpoints.list()] == [before[0], *(h + 2 for h in before[1:])]
        finally:
            s.close()


async def test_a_prompt_cut_to_the_window_moves_no_checkpoint(tmp_path):
    with FakeOpenAIServer(editor) as server:
        s = session(tmp_path, server)
        try:
            await three_writes(s)
            before = [(c.prompt, c.history_len) for c in s.checkpoints.list()]
            s.store.rewrite({**cut_boundary(8_000), "strategy": "replace", "tokens_before": 0, "tokens_after": 0,
                             "archive": "", "time": ""}, list(s.messages))
            assert [(c.prompt, c.history_len) for c in s.checkpoints.list()] == before
        finally:
            s.close()
