"""The REPL when the disk fills as a turn's answer is saved: the answer, streamed as it came, stays in
the conversation; one line says it was received but not saved; the next message saves it.

Before, the turn went on from the session file, which ends at the user's message: the next request
told the model that turn 'ended before an answer', and /history said `no answer`. A REPL turn appends
three times (the typed message, the request, the answer): `append.partial:3:enospc` fails the third.
"""

from __future__ import annotations

from pathlib import Path

from compact_agent import crashpoints
from compact_agent.session.store import load_session_file
from tests.fakes.openai_server import ChatRequest, Reply, message_text

from .repl_driver import drive


def answer(req: ChatRequest) -> Reply:
    return Reply.text(f"ANSWER to {req.last_user_text()}")


async def test_an_answer_the_repl_could_not_save_is_kept_and_saved_with_the_next_message(tmp_path: Path) -> None:
    crashpoints.configure("append.partial:3:enospc")
    try:
        run = await drive(tmp_path, answer, ["hello\r", "again\r"])
    finally:
        crashpoints.configure("")
    out = " ".join(run.out.split())
    assert "ANSWER to hello" in out and "ANSWER to again" in out, out
    assert ("the model's answer was received but not saved: it is shown above, and your next message saves it with "
            "the conversation if the disk has room by then") in out, out
    assert "Traceback" not in out and "Error" not in out
    second = [(m["role"], message_text(m)) for m in run.server.requests[-1].messages if m["role"] != "system"]
    assert second == [("user", "hello"), ("assistant", "ANSWER to hello"), ("user", "again")], second
    [path] = (tmp_path / "home" / "projects").glob("*/*.jsonl")
    loaded = load_session_file(path)
    said = [getattr(p, "content", None) for m in loaded.messages for p in m.parts]
    assert said == ["hello", "ANSWER to hello", "again", "ANSWER to again"], said
    assert not loaded.warnings

    resumed = await drive(tmp_path, answer, ["more\r"], continue_last=True)
    assert "warning" not in resumed.out and "no answer" not in resumed.out, resumed.out


async def test_a_session_resumed_after_an_answer_it_could_not_save_says_it_was_answered(tmp_path: Path) -> None:
    """The REPL left after the failed save, before another message: the file ends at `hello` and
    marks its answer as received but not saved. The resume view said '(no answer: the turn was
    interrupted, hit its request limit, or failed)', and the next request closed that turn for the
    model with '[compact-agent: this turn ended before an answer …]': both false, the model had
    answered and the user had read it."""
    crashpoints.configure("append.partial:3:enospc")
    try:
        await drive(tmp_path, answer, ["hello\r"])
    finally:
        crashpoints.configure("")
    resumed = await drive(tmp_path, answer, ["more\r"], continue_last=True)
    lines = [line.strip() for line in resumed.out.splitlines()]
    at = lines.index("› hello")
    assert lines[at + 1] == NOT_SAVED, resumed.out
    assert "no answer" not in resumed.out and "interrupted" not in resumed.out, resumed.out
    sent = [(m["role"], message_text(m)) for m in resumed.server.requests[-1].messages if m["role"] != "system"]
    assert sent == [("user", "hello"), ("assistant", CLOSE), ("user", "more")], sent

    again = await drive(tmp_path, answer, ["/history\r"], continue_last=True)
    assert "no answer" not in again.out and "interrupted" not in again.out, again.out
    assert "not saved" in again.out and "ANSWER to more" in again.out, again.out


NOT_SAVED = "(answered, but the answer could not be saved: it was shown then, and is not in the conversation)"
CLOSE = ("[compact-agent: this message was answered and the user read the answer, but it could not be saved, so "
         "it is not in this history]")


def work(req: ChatRequest) -> Reply:
    """`go` is answered by a command (run once), anything else as `answer` answers it."""
    if req.last_user_text() == "go" and not any(m["role"] == "tool" for m in req.messages):
        return Reply.tools([("bash", {"command": "echo RAN"})])
    return answer(req)


async def test_tool_calls_the_repl_could_not_save_are_kept_and_said(tmp_path: Path) -> None:
    """The disk fills as the save before the tools' results go out is made: the REPL went on from
    the file, which ends at the user's message, and its line did not say that the model's calls had
    run. They are kept in the conversation, the line says so, and the next message saves them."""
    crashpoints.configure("append.partial:3:enospc")
    try:
        run = await drive(tmp_path, work, ["go\r", "again\r"], permission_mode="yes")
    finally:
        crashpoints.configure("")
    out = " ".join(run.out.split())
    assert ("what was saved before is intact; the model made 1 tool call (bash), and it and its result are not saved: "
            "it is kept in the conversation with its result, and your next message saves both if the disk has room "
            "by then") in out, out
    assert "RAN" in out and "declined" not in out, out
    assert "Traceback" not in out and "Error" not in out
    sent = [m["role"] for m in run.server.requests[-1].messages if m["role"] != "system"]
    assert sent == ["user", "assistant", "tool", "assistant", "user"], sent  # the close of `go`, then `again`
    [path] = (tmp_path / "home" / "projects").glob("*/*.jsonl")
    kinds = [type(m).__name__ for m in load_session_file(path).messages]
    assert kinds == ["ModelRequest", "ModelResponse", "ModelRequest", "ModelResponse", "ModelRequest",
                     "ModelResponse"], kinds


def test_the_line_of_calls_not_saved_is_worded_for_one_call_and_for_several() -> None:
    """The REPL's line said 'they are kept' of a single call that the same line called 'it'."""
    from compact_agent.agent.run.unsaved_answer import CallsNotSaved
    from compact_agent.context.contract import HistoryNotSaved

    error = HistoryNotSaved(OSError(28, "No space left on device"), step="append", new=2)
    one, two = CallsNotSaved(["bash"], error).line("full", kept=True), CallsNotSaved(["edit", "bash"], error)
    assert one == ("full; the model made 1 tool call (bash), and it and its result are not saved: it is kept in the "
                   "conversation with its result, and your next message saves both if the disk has room by then")
    assert two.line("full", kept=True) == (
        "full; the model made 2 tool calls (edit, bash), and they and their results are not saved: they are kept in "
        "the conversation with their results, and your next message saves them all if the disk has room by then")
    assert two.line("full", kept=False).endswith(": --continue goes on from your message, and the model will not "
                                                 "know what they did")


def test_a_resumed_turn_at_work_whose_answer_was_not_saved_says_it_was_answered() -> None:
    """The history ends at the results of the model's calls, and the file marks the answer to them as
    received but not saved: the resume view said '(no answer: the turn was interrupted, …)'."""
    import io

    from pydantic_ai.messages import ModelRequest, ModelResponse, ToolCallPart, ToolReturnPart, UserPromptPart
    from rich.console import Console

    from compact_agent.ui.history_view import ANSWER_NOT_SAVED, show_last_exchanges

    messages = [ModelRequest(parts=[UserPromptPart("go")]),
                ModelResponse(parts=[ToolCallPart("bash", {"command": "echo RAN"}, "c1")]),
                ModelRequest(parts=[ToolReturnPart("bash", "RAN", "c1")])]
    console = Console(record=True, width=200, file=io.StringIO(), force_terminal=False)
    show_last_exchanges(console, messages, not_saved=True)
    lines = [line.strip() for line in console.export_text().splitlines()]
    assert lines == ["› go", ANSWER_NOT_SAVED], lines


async def test_a_session_resumed_after_tool_calls_it_could_not_save_says_they_ran(tmp_path: Path) -> None:
    """The REPL left after its tool calls could not be saved, before another message: the file ends
    at `go`. The resume view said '(no answer: the turn was interrupted, …)' and the model read that
    the turn 'ended before an answer', as if nothing had run: the command ran, and files may have
    changed. The file marks the calls, and both say that they ran."""
    from compact_agent.agent.run.unfinished import RAN_NOT_SAVED
    from compact_agent.ui.history_view import RAN_NOT_SAVED as RAN_SHOWN

    crashpoints.configure("append.partial:3:enospc")
    try:
        await drive(tmp_path, work, ["go\r"], permission_mode="yes")
    finally:
        crashpoints.configure("")
    resumed = await drive(tmp_path, work, ["more\r"], continue_last=True)
    lines = [line.strip() for line in resumed.out.splitlines()]
    at = lines.index("› go")
    assert lines[at + 1] == RAN_SHOWN.format(tools="bash"), resumed.out
    assert "(no answer" not in resumed.out and "interrupted" not in resumed.out, resumed.out
    assert "the model made 1 tool call for it (bash), which ran" in " ".join(resumed.out.split()), resumed.out
    sent = [(m["role"], message_text(m)) for m in resumed.server.requests[-1].messages if m["role"] != "system"]
    assert sent == [("user", "go"), ("assistant", RAN_NOT_SAVED.format(tools="bash")), ("user", "more")], sent
