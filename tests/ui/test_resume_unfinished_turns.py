"""A resumed session shows its unfinished turns as they ended. A REPL killed (SIGTERM) while its
request was out left the message unanswered and `-c` said nothing of it; a turn interrupted with
Esc or Ctrl-C, which live said `interrupted`, came back as an answer: `⏺ [compact-agent: this turn
ended before an answer …]`, the program's close of the turn drawn as the model's words. Now `-c`,
`-p -c` and `/resume` warn of the unanswered message in the same words, and a closed turn is a
dim line under its prompt. The killed REPL's turn is closed as it ends, in the signal's words:
`-c` and `/resume` say the signal stopped it (it was said as a message that 'got no answer', and
shown as a turn 'interrupted, hit its request limit, or failed')."""

from __future__ import annotations

import signal
import threading

from tests.fakes.openai_server import FakeOpenAIServer, Reply

from .pty_driver import Terminal
from .repl_driver import drive

STOPPED_BY_SIGTERM = ("the last turn was stopped by a termination signal (SIGTERM) before the model answered: your next "
                     "message goes on from there")
SIGTERM_NO_ANSWER = "(no answer: the turn was stopped by a termination signal (SIGTERM); the session was saved)"
NO_ANSWER = "(no answer: the turn was interrupted, hit its request limit, or failed)"
CLOSE = "[compact-agent: this turn ended before an answer"


def a_repl_killed_while_its_request_is_out(tmp_path) -> str:
    """`first` answered, then `second message typed` sent and the REPL killed (SIGTERM) while the
    fake server holds its request; the session's id."""
    arrived, release = threading.Event(), threading.Event()

    def held(req) -> Reply:
        if "second" in req.last_user_text():
            arrived.set()
            release.wait(60)
        return Reply.text(f"ANSWER to {req.last_user_text()}")

    with FakeOpenAIServer(held) as server:
        term = Terminal(tmp_path, server.base_url, "--yes")
        try:
            term.prompt(term.read_until("/help for commands"))
            at = term.type("first\r")
            term.prompt(term.read_until("ANSWER to first", at))
            term.type("second message typed\r")
            assert arrived.wait(60)
            term.proc.send_signal(signal.SIGTERM)
            assert term.proc.wait(30) != 0
        finally:
            release.set()
            term.close()
    [path] = (tmp_path / "home" / "projects").glob("*/*.jsonl")
    return path.stem


async def test_a_repl_killed_during_its_request_says_so_on_resume_and_on_resume_command(tmp_path):
    session_id = a_repl_killed_while_its_request_is_out(tmp_path)
    resumed = await drive(tmp_path, lambda req: Reply.text("ok"), [], continue_last=True)
    assert STOPPED_BY_SIGTERM in resumed.out and "got no answer" not in resumed.out, resumed.out
    lines = resumed.out.splitlines()
    at = lines.index("› second message typed")
    assert lines[at + 1].strip() == SIGTERM_NO_ANSWER and resumed.server.requests == [], resumed.out

    switched = await drive(tmp_path, lambda req: Reply.text("ok"), [f"/resume {session_id}\r"])
    assert f"resumed session {session_id}" in switched.out, switched.out
    assert STOPPED_BY_SIGTERM in switched.out and SIGTERM_NO_ANSWER in switched.out


async def test_a_turn_interrupted_earlier_is_a_dim_line_not_an_answer(tmp_path):
    release = threading.Event()
    keys: list = []

    def stuck(req) -> Reply:
        if "second" in req.last_user_text():
            keys[0].send_text("\x1b")  # Esc while the model works
            release.wait(30)
        return Reply.text(f"ANSWER to {req.last_user_text()}")

    try:
        live = await drive(tmp_path, stuck, ["first\r", "second\r", "third\r"], pipe=keys)
    finally:
        release.set()
    assert "interrupted" in live.out and "ANSWER to third" in live.out
    resumed = await drive(tmp_path, lambda req: Reply.text("ok"), [], continue_last=True)
    lines = resumed.out.splitlines()
    at = lines.index("› second")
    assert lines[at + 1].strip() == NO_ANSWER, resumed.out
    assert CLOSE not in resumed.out and "warning" not in resumed.out  # answered since: nothing is unanswered
    assert "ANSWER to third" in resumed.out


def test_a_cut_reply_and_a_turn_closed_after_text_are_said_under_the_answer():
    from pydantic_ai.messages import (
        ModelRequest,
        ModelResponse,
        TextPart,
        ToolCallPart,
        ToolReturnPart,
        UserPromptPart,
    )

    from compact_agent.agent.run.unfinished import CUT, UNANSWERED
    from compact_agent.ui.history_view import CUT_OFF, ENDED, last_exchanges

    def ours(text: str, kind: str) -> ModelResponse:
        return ModelResponse(parts=[TextPart(text)], metadata={"compact_agent": {"synthetic": kind}})

    messages = [ModelRequest(parts=[UserPromptPart("tell me")]), ours(f"half of it\n\n{CUT}", "cut"),
                ModelRequest(parts=[UserPromptPart("look")]),
                ModelResponse(parts=[TextPart("looking"), ToolCallPart("read_file", {"path": "a"}, "c1")]),
                ModelRequest(parts=[ToolReturnPart("read_file", "x", "c1")]), ours(UNANSWERED, "unanswered"),
                ModelRequest(parts=[UserPromptPart("more")]), ours(UNANSWERED, "unanswered")]
    assert last_exchanges(messages) == ["› tell me", "  half of it", f"  {CUT_OFF}", "› look", "  looking",
                                        f"  {ENDED}", "› more", f"  {NO_ANSWER}"]


async def test_a_turn_stopped_with_ctrl_c_is_said_on_resume_as_a_note_not_a_warning(tmp_path):
    release = threading.Event()
    keys: list = []

    def stuck(req) -> Reply:
        if "second" in req.last_user_text():
            keys[0].send_text("\x03")  # Ctrl-C while the model works
            release.wait(30)
        return Reply.text(f"ANSWER to {req.last_user_text()}")

    try:
        live = await drive(tmp_path, stuck, ["first\r", "second\r"], pipe=keys)
    finally:
        release.set()
    assert "interrupted" in live.out
    stopped = "the last turn was stopped by you before an answer: your message is in the conversation, unanswered"
    resumed = await drive(tmp_path, lambda req: Reply.text("ok"), [], continue_last=True)
    assert "warning" not in resumed.out and stopped in resumed.out, resumed.out
    assert "› second" in resumed.out and resumed.server.requests == []
    lines = resumed.out.splitlines()  # not closed yet (the next message closes it), and no answer all the same
    assert lines[lines.index("› second") + 1].strip() == NO_ANSWER, resumed.out

    [path] = (tmp_path / "home" / "projects").glob("*/*.jsonl")
    switched = await drive(tmp_path, lambda req: Reply.text("ok"), [f"/resume {path.stem}\r"])
    assert f"resumed session {path.stem}" in switched.out and stopped in switched.out, switched.out
    assert "warning" not in switched.out


def test_the_line_under_an_unanswered_prompt_keeps_its_indent_when_narrow():
    import io

    from pydantic_ai.messages import ModelRequest, ModelResponse, TextPart, UserPromptPart
    from rich.console import Console

    from compact_agent.agent.run.unfinished import UNANSWERED
    from compact_agent.ui.history_view import show_last_exchanges

    messages = [ModelRequest(parts=[UserPromptPart("more")]),
                ModelResponse(parts=[TextPart(UNANSWERED)], metadata={"compact_agent": {"synthetic": "unanswered"}})]
    c = Console(record=True, width=40, file=io.StringIO(), force_terminal=False)
    show_last_exchanges(c, messages)
    under = c.export_text().splitlines()[1:]
    assert len(under) == 2 and all(line.startswith("  ") and len(line) < 40 for line in under), under
    assert " ".join(line.strip() for line in under) == NO_ANSWER


def test_a_history_ending_at_its_prompt_shows_no_answer_under_it():
    """The turn the last run stopped, or died in, is not closed until the next message: its prompt
    ends the history. It showed with nothing under it, like the prompt that waits for input."""
    from pydantic_ai.messages import ModelRequest, ModelResponse, TextPart, UserPromptPart

    from compact_agent.ui.history_view import last_exchanges

    messages = [ModelRequest(parts=[UserPromptPart("first")]), ModelResponse(parts=[TextPart("an answer")]),
                ModelRequest(parts=[UserPromptPart("second")])]
    assert last_exchanges(messages) == ["› first", "  an answer", "› second", f"  {NO_ANSWER}"]


def test_a_history_ending_at_tool_results_shows_the_turn_ended_under_it():
    """A turn stopped while the model was at work (--max-turns after its tool calls ran, Esc or a
    signal while they ran) ends the history at the calls' results, not closed until the next message.
    Its prompt showed with nothing under it, or with the model's words before its calls as if they
    were its answer; closed, the same turn shows the no-answer line."""
    from pydantic_ai.messages import (
        ModelRequest,
        ModelResponse,
        TextPart,
        ToolCallPart,
        ToolReturnPart,
        UserPromptPart,
    )

    from compact_agent.ui.history_view import ENDED, last_exchanges

    def at_work(words: str) -> list:
        parts = [TextPart(words)] if words else []
        return [ModelRequest(parts=[UserPromptPart("list the files")]),
                ModelResponse(parts=[*parts, ToolCallPart("glob", {"pattern": "*"}, tool_call_id="c1")]),
                ModelRequest(parts=[ToolReturnPart("glob", "a.py", tool_call_id="c1")])]

    assert last_exchanges(at_work("")) == ["› list the files", f"  {NO_ANSWER}"]
    assert last_exchanges(at_work("Let me look.")) == ["› list the files", "  Let me look.", f"  {ENDED}"]
    answered = [*at_work(""), ModelResponse(parts=[TextPart("a.py is there")])]
    assert last_exchanges(answered) == ["› list the files", "  a.py is there"]


async def test_the_killed_turn_typed_again_is_retried_the_file_only_appended_to(tmp_path):
    """Typed again after `-c`, the message whose request the SIGTERM stopped is that turn retried:
    sent once, no close before it, and the session file appended to. The close was saved at once,
    so the retry cut it out again: the file was archived and rewritten, and /history showed a row
    saying 'the conversation went on from an earlier point' for a plain retry."""
    a_repl_killed_while_its_request_is_out(tmp_path)
    [path] = (tmp_path / "home" / "projects").glob("*/*.jsonl")
    before = path.read_bytes()
    run = await drive(tmp_path, lambda req: Reply.text("ANSWER again"), ["second message typed\r", "/history\r"],
                      continue_last=True)
    assert "ANSWER again" in run.out, run.out
    sent = run.server.requests[-1].messages
    assert [m["content"] for m in sent if m["role"] == "user"][-2:] == ["first", "second message typed"]
    assert [m["content"] for m in sent if m["role"] == "assistant"] == ["ANSWER to first"]
    assert path.read_bytes().startswith(before)
    assert "went on from an earlier point" not in run.out and not list(path.parent.glob("compact-history/*"))
