"""What a run ended by SIGTERM or SIGHUP saves of its turn (agent/run/ended_calls.py), and what the
next load says of it: the model's answer, with a result for each of its tool calls — the one that had
finished as it came, the others saying the run ended while they ran — and a note naming what was
stopped. Before, the answer was lost and the next run said the message "got no answer". (End to
end, with a real command killed: tests/e2e/test_print_terminated_command.py.)"""

from __future__ import annotations

import asyncio

from pydantic_ai.messages import (
    ModelMessage,
    ModelRequest,
    ModelResponse,
    TextPart,
    ToolCallPart,
    ToolReturn,
    ToolReturnPart,
    UserPromptPart,
)

from compact_agent.agent.run.ended_calls import EndedCalls
from compact_agent.agent.tools.base import is_failure
from compact_agent.context.plumbing.markers import tool_mark
from compact_agent.session.last_run import BY_USER, ended_by
from compact_agent.session.load_warnings import LoadProblems

ASKED = ModelRequest(parts=[UserPromptPart("run the tests")])


def answered(*calls: ToolCallPart) -> tuple[EndedCalls, list[ModelMessage], ModelResponse]:
    """An EndedCalls that saw the model answer `calls` (the run's history holds the answer, as
    pydantic-ai's does once the tools run)."""
    watch = EndedCalls()
    answer = ModelResponse(parts=[TextPart("running them"), *calls])
    history: list[ModelMessage] = [ASKED, answer]
    watch.history, watch.answer = history, answer
    return watch, history, answer


async def finish(watch: EndedCalls, call: ToolCallPart, result: object) -> None:
    async def handler(args: dict) -> object:
        return result

    assert await watch.wrap_tool_execute(None, call=call, tool_def=None, args={}, handler=handler) is result  # type: ignore[arg-type]


def test_each_call_gets_a_result_the_finished_one_as_it_came() -> None:
    read = ToolCallPart("read_file", {"path": "a.py"}, tool_call_id="c1")
    run = ToolCallPart("bash", {"command": "pytest"}, tool_call_id="c2")
    watch, history, answer = answered(read, run)
    asyncio.run(finish(watch, read, "1\tprint('a')"))
    saved = watch.unsaved("SIGTERM")
    assert saved is not None and saved[:2] == [ASKED, answer] and len(saved) == 3
    first, second = saved[2].parts
    assert isinstance(first, ToolReturnPart) and isinstance(second, ToolReturnPart)
    assert (first.tool_call_id, first.content, is_failure(first)) == ("c1", "1\tprint('a')", False)
    assert (second.tool_call_id, is_failure(second)) == ("c2", True)
    assert second.content == "[compact-agent was ended by SIGTERM before this call finished: its command, " \
        "if it had started, was killed with the processes it started]"
    assert ended_by(saved) == ("SIGTERM", ["bash"])
    assert history == [ASKED, answer]  # the run's own history is not changed
    # Killed before it finished: it says nothing of what the command returns, and a compaction keeps
    # the run before it the model was using (compaction/runs.py), as for a command killed at its timeout.
    assert tool_mark(second) == {"error": True, "finished": False} and tool_mark(first) == {}


def test_a_finished_result_keeps_its_marks() -> None:
    run = ToolCallPart("bash", {"command": "false"}, tool_call_id="c1")
    watch, _, _ = answered(run)
    failed = ToolReturn(return_value="(no output)\nexit code: 1", metadata={"compact_agent": {"tool": {"error": True}}})
    asyncio.run(finish(watch, run, failed))
    saved = watch.unsaved("SIGHUP")
    assert saved is not None
    [part] = saved[-1].parts
    assert isinstance(part, ToolReturnPart) and part.content == "(no output)\nexit code: 1" and is_failure(part)
    assert ended_by(saved) == ("SIGHUP", [])


def test_nothing_is_added_once_the_results_follow_the_answer_or_before_any_answer() -> None:
    assert EndedCalls().unsaved("SIGTERM") is None
    run = ToolCallPart("bash", {"command": "true"}, tool_call_id="c1")
    watch, history, _ = answered(run)
    history.append(ModelRequest(parts=[ToolReturnPart("bash", "exit code: 0", tool_call_id="c1")]))
    assert watch.unsaved("SIGTERM") is None  # the next request saves them


def test_a_final_answer_not_saved_yet_is_saved_without_results() -> None:
    watch = EndedCalls()
    answer = ModelResponse(parts=[TextPart("all green")])
    watch.history, watch.answer = [ASKED], answer
    assert watch.unsaved("SIGTERM") == [ASKED, answer]


def test_the_note_says_what_was_stopped() -> None:
    def note(unfinished: list[str]) -> str:
        [line] = LoadProblems(at_work=True, ended_by="SIGTERM", unfinished=unfinished).notes()
        assert not LoadProblems(at_work=True, ended_by="SIGTERM", unfinished=unfinished).warnings("s.jsonl")
        return line

    assert note(["bash"]) == ("the last run was ended by SIGTERM while the model's tool calls ran: bash did not "
                              "finish (its command, if it had started, was killed with the processes it started), as "
                              "their saved results say; your next message goes on from there")
    assert "ran: grep did not finish, as" in note(["grep"])
    assert "ran: they had finished, as" in note([])
    # A run that died without saying so still warns, as before.
    assert LoadProblems(at_work=True).warnings("s.jsonl") and not LoadProblems(at_work=True).notes()


def test_a_turn_the_user_stopped_replaces_the_results_the_cancelled_run_collected() -> None:
    """Esc or Ctrl-C while the tools run: pydantic-ai leaves a request of the results collected so
    far (`interrupted`, never sent), the running call without one; saved so, it would be a call
    without its result. The results saved are ours, one for each call."""
    read = ToolCallPart("read_file", {"path": "a.py"}, tool_call_id="c1")
    run = ToolCallPart("bash", {"command": "pytest"}, tool_call_id="c2")
    watch, history, answer = answered(read, run)
    asyncio.run(finish(watch, read, "1\tprint('a')"))
    history.append(ModelRequest(parts=[ToolReturnPart("read_file", "1\tprint('a')", tool_call_id="c1")],
                                state="interrupted"))
    saved = watch.unsaved(BY_USER)
    assert saved is not None and saved[:2] == [ASKED, answer] and len(saved) == 3
    first, second = saved[2].parts
    assert isinstance(first, ToolReturnPart) and isinstance(second, ToolReturnPart)
    assert (first.tool_call_id, first.content) == ("c1", "1\tprint('a')")
    assert (second.tool_call_id, is_failure(second)) == ("c2", True)
    assert second.content == "[stopped by the user before this call finished: its command, if it had started, " \
        "was killed with the processes it started]"
    assert ended_by(saved) == (BY_USER, ["bash"])


def test_the_note_of_a_turn_the_user_stopped_says_what_was_stopped() -> None:
    """In the REPL the stop is marked too (stopped); in print mode (Ctrl-C) only the results say it."""
    for stopped in (True, False):
        found = LoadProblems(at_work=True, stopped=stopped, ended_by=BY_USER, unfinished=["bash"])
        assert not found.warnings("s.jsonl")
        assert found.notes() == ["the last turn was stopped by you while the model's tool calls ran: bash did not "
                                 "finish (its command, if it had started, was killed with the processes it started), "
                                 "as their saved results say; your next message goes on from there"]
    # Stopped while the model was at work on results it had (no call of it running): as before.
    assert LoadProblems(at_work=True, stopped=True).notes() == [
        "the last turn was stopped by you while the model was at work: your next message goes on from there"]


def test_a_bash_call_stopped_at_its_approval_is_said_not_to_have_run() -> None:
    """Its command never ran (it was waiting for approval, `may_run` never marked): the saved result
    says so to the model, and the note a load or the REPL gives says so to the user, where both said
    the command was killed if it had started."""
    run = ToolCallPart("bash", {"command": "git push"}, tool_call_id="c1")
    read = ToolCallPart("read_file", {"path": "a.py"}, tool_call_id="c2")
    watch, _, _ = answered(run, read)
    watch.may_run = {"c1": [], "c2": []}  # both started: the bash call waits at its question
    saved = watch.unsaved(BY_USER)
    assert saved is not None
    first = saved[-1].parts[0]
    assert isinstance(first, ToolReturnPart) and "did not run (it was waiting for approval)" in str(first.content)
    assert tool_mark(first) == {"error": True, "ran": False}  # as the permissions' refusal (tools/base.py NotRun)
    by, unfinished = ended_by(saved)
    assert (by, unfinished) == (BY_USER, ["bash at its approval question", "read_file"])
    [line] = LoadProblems(at_work=True, ended_by=by, unfinished=unfinished).notes()
    assert line == ("the last turn was stopped by you while the model's tool calls ran: read_file did not finish; "
                    "bash was stopped at its approval question and its command did not run, as their saved "
                    "results say; your next message goes on from there")


def test_a_bash_call_stopped_after_its_command_started_is_said_to_be_killed() -> None:
    """Past its approval (`may_run` marked) its command had started: the result and the note say it
    was killed, where both said 'if it had started' while the spinner showed it running."""
    run = ToolCallPart("bash", {"command": "sleep 9"}, tool_call_id="c1")
    watch, _, _ = answered(run)
    watch.may_run = {"c1": [True]}
    saved = watch.unsaved(BY_USER)
    assert saved is not None
    [part] = saved[-1].parts
    assert isinstance(part, ToolReturnPart)
    assert part.content == "[stopped by the user before this call finished: its command was killed with the " \
        "processes it started]"
    assert tool_mark(part) == {"error": True, "finished": False}
    by, unfinished = ended_by(saved)
    assert (by, unfinished) == (BY_USER, ["bash after its command started"])
    [line] = LoadProblems(at_work=True, ended_by=by, unfinished=unfinished).notes()
    assert line == ("the last turn was stopped by you while the model's tool calls ran: bash did not finish (its "
                    "command was killed with the processes it started), as their saved results say; your next "
                    "message goes on from there")


def test_a_request_out_when_the_run_ended_is_counted_also_once_ctrl_c_unwound_it() -> None:
    """-p's result object counts a request that was out (sent, no usage back): SIGTERM's saw the
    history end at it; Ctrl-C's came after the run unwound, when pydantic-ai had recorded an
    "interrupted" reply for it, and said 0 requests."""
    watch = EndedCalls()
    assert not watch.out()  # before any request
    watch.asking = [ASKED]
    assert watch.out()  # the signal's handler: the history ends at the request
    watch.asking = [ASKED, ModelResponse(parts=[TextPart("par")], state="interrupted")]
    assert watch.out() and not watch.asked()  # Ctrl-C, unwound: the stopped request's reply recorded
    watch.asking = [ASKED, ModelResponse(parts=[ToolCallPart("bash", {"command": "sleep 9"}, "c1")])]
    assert not watch.out()  # stopped while its tools ran: the request was answered (and counted)
