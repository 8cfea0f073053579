"""`/history` gives every message you typed a `you` row with its number, also when the request that
carries it holds tool results too: the results of a file you attached, or of the files a compaction
restored, are in the same request as the message that follows them."""

from __future__ import annotations

from tests.e2e.scripted import is_notes_request, is_summary_request
from tests.fakes.openai_server import Reply

from .repl_driver import drive


def runs_a_command_first(req) -> Reply:
    if is_summary_request(req):
        return Reply.text("<summary>1. Primary Request and Intent: look at the tests.</summary>")
    if is_notes_request(req):
        return Reply.text("")
    if req.messages[-1].get("role") != "tool":
        return Reply.tools([("bash", {"command": "echo ran"})])
    return Reply.text("ok " * 600)


def rows(out: str) -> list[tuple[str, str, str]]:
    """(number, who, what) for each row of the message list; the number is '' on a second row."""
    listed = out[out.index("messages ("):].splitlines()[1:]
    found = []
    for line in listed:
        if not line.startswith("  ") or line.startswith("resume"):
            break
        number, rest = line[2:6].strip(), line[7:]
        found.append((number, rest[:12].strip(), rest[13:].strip()))
    return found


async def test_a_message_with_an_attached_file_has_its_you_row(tmp_path):
    (tmp_path / "project").mkdir()
    (tmp_path / "project" / "test_calc.py").write_text("def test_add():\n    assert 1 + 1 == 2\n")
    # the next turn's history joins the attachment's result and the message after it into one request
    run = await drive(tmp_path, runs_a_command_first,
                      ["look at @test_calc.py and the test output\r", "thanks\r", "/history\r"], permission_mode="yes")
    listed = rows(run.out)
    you = [r for r in listed if r[1] == "you"]
    assert [r[2] for r in you] == ["look at @test_calc.py and the test output", "thanks"], run.out
    at = listed.index(you[0])
    assert you[0][0].isdigit(), run.out  # the number /compact --from N takes
    assert ("", "tool result", "read_file: 2 lines") == listed[at + 1], run.out  # the same request's results


def test_a_request_with_restored_files_context_and_your_words_shows_you_and_the_results():
    """After a compaction the restored files' results, our own context (the plan) and the next
    message you type are joined into one request; only what you typed is a `you` row."""
    from pydantic_ai.messages import ModelRequest, ToolReturnPart, UserPromptPart

    from compact_agent.ui.history_view import message_rows

    restored = {"compact_agent": {"synthetic": "restore"}}
    joined = ModelRequest(parts=[
        ToolReturnPart("read_file", "     1\talpha", tool_call_id="r1", metadata=restored),
        ToolReturnPart("read_file", "     1\tbeta\n     2\tgamma", tool_call_id="r2", metadata=restored),
        UserPromptPart("[compact-agent: current plan] The plan you were following: 1. fix calc"),
        UserPromptPart("now fix the failing test"),
    ], metadata=restored)
    assert message_rows(joined) == [("you", "now fix the failing test"),
                                    ("tool results", "read_file: 1 line; read_file: 2 lines")]
    context_only = ModelRequest(parts=[UserPromptPart("[compact-agent: current plan] 1. fix calc")],
                                metadata={"compact_agent_context": ["plan"]})
    assert message_rows(context_only) == [("context", "[compact-agent: current plan] 1. fix calc")]


def test_the_programs_close_of_a_turn_is_no_answer_of_the_models():
    """A turn killed or failed before an answer is closed by the program (agent/run/unfinished.py);
    /history listed that close as an `assistant` row saying '[compact-agent: this turn ended …]'.
    A reply the stream cut off keeps its text, with the cut said in the user's words."""
    from pydantic_ai.messages import ModelRequest, UserPromptPart

    from compact_agent.agent.run.unfinished import CUT, UNANSWERED, cut_reply, unanswered_close
    from compact_agent.ui.history_view import message_rows

    asked = [ModelRequest(parts=[UserPromptPart("explain the failing test")])]
    closed = unanswered_close(asked)
    assert closed is not None
    # `no answer  the turn was …`: the row's name says it once ('no answer  no answer: …' said it twice)
    assert message_rows(closed) == [("no answer", "the turn was interrupted, hit its request limit, or failed")]
    torn = cut_reply(asked, ["half of the explanation"])
    assert torn is not None
    (who, what), = message_rows(torn)
    assert who == "assistant" and what.startswith("half of the explanation") and "cut off" in what
    assert UNANSWERED not in what and CUT not in what


async def test_an_empty_conversation_says_so_instead_of_a_heading_over_nothing(tmp_path):
    run = await drive(tmp_path, runs_a_command_first, ["/history\r"])
    assert "no compactions yet\nno messages yet: the conversation is empty\n" in run.out
    assert "messages (" not in run.out


def answers_at_length(req) -> Reply:
    if is_summary_request(req):
        return Reply.text("<summary>1. Primary Request and Intent: look at calc.</summary>")
    if is_notes_request(req):
        return Reply.text("")
    return Reply.text("ok " * 600)


async def test_an_attached_read_is_no_call_and_a_prompt_kept_by_compact_from_keeps_its_row(tmp_path):
    """The read of an @file was listed as `tool call read_file(calc.py)`, numbered before the
    message that asked for it, as if the model had called it; and after `/compact --from 4` the
    prompt kept at 3, which the compaction message joins, showed inside the summary's row
    (`summary  second one This session continues…`)."""
    (tmp_path / "project").mkdir()
    (tmp_path / "project" / "calc.py").write_text("def add(a, b):\n    return a + b\n")
    run = await drive(tmp_path, answers_at_length, ["look at @calc.py\r", "second one\r", "third one\r", "/history\r",
                                                    "/compact --from 4\r", "/history\r"], permission_mode="yes")
    before, after = run.out.split("compacted (manual, partial_from)")
    assert rows(before)[:3] == [("0", "attached", "calc.py"), ("1", "you", "look at @calc.py"),
                                ("", "tool result", "read_file: 2 lines")], before
    listed = rows(after)
    assert [r[:2] for r in listed] == [("0", "attached"), ("1", "you"), ("", "tool result"), ("2", "assistant"),
                                       ("3", "you"), ("", "summary"), ("4", "assistant")], after
    assert listed[4][2] == "second one" and listed[5][2].startswith("This session continues"), after


def test_files_a_compaction_put_back_are_restored_not_called():
    from pydantic_ai.messages import ModelResponse, ToolCallPart

    from compact_agent.ui.history_view import message_rows

    restored = ModelResponse(parts=[ToolCallPart("read_file", {"path": "a.py"}, tool_call_id="restore_0_x"),
                                    ToolCallPart("read_file", {"path": "src/b.py"}, tool_call_id="restore_1_y")],
                             metadata={"compact_agent": {"synthetic": "restore"}})
    assert message_rows(restored) == [("restored", "a.py, src/b.py")]


async def test_the_prompt_of_a_turn_compacted_part_way_has_its_you_row(tmp_path):
    """A long turn in a small window is compacted while it runs: its prompt is then only among the
    user's messages the compaction's message quotes, and the model's work goes on after it.
    `/history` listed the summary, then the model's steps, and no `you` row for that prompt."""
    from tests.e2e.scripted import task_text

    from .test_resumed_after_compaction import resumed_after_a_turn_compacted_as_it_ran

    run = await resumed_after_a_turn_compacted_as_it_ran(tmp_path, ["/history\r"])
    listed = rows(run.out)
    assert listed[0][:2] == ("0", "summary"), run.out
    assert listed[1][:2] == ("", "you") and task_text(40).startswith(listed[1][2].rstrip("…")), run.out
    assert listed[2][0] == "1" and listed[2][1] != "you", run.out  # the model's work, numbered on
    assert [r for r in listed if r[1] == "you"] == [listed[1]], run.out


def test_a_compaction_followed_by_its_restored_reads_alone_has_no_turn_going_on():
    """The files a compaction put back are read in the program's name right after its message: no
    work of the model's goes on there, so no prompt the message quotes gets a `you` row; after them,
    the model's work does."""
    from pydantic_ai.messages import (
        ModelRequest,
        ModelResponse,
        TextPart,
        ToolCallPart,
        ToolReturnPart,
        UserPromptPart,
    )

    from compact_agent.ui.history_view import last_exchanges, message_rows

    head = UserPromptPart("This session continues a conversation that was compacted to keep the context small.")
    compacted = ModelRequest(parts=[head], metadata={"compact_agent": {"kind": "summary", "user_messages": ["fix it"]}})
    restored = {"compact_agent": {"synthetic": "restore"}}
    reads = [ModelResponse(parts=[ToolCallPart("read_file", {"path": "a.py"}, "r1")], metadata=restored),
             ModelRequest(parts=[ToolReturnPart("read_file", "     1\talpha", "r1")], metadata=restored)]
    work = ModelResponse(parts=[TextPart("Fixed.")])
    assert [who for who, _ in message_rows(compacted, after=reads)] == ["summary"]
    assert [who for who, _ in message_rows(compacted, after=[*reads, work])] == ["summary", "you"]
    assert last_exchanges([compacted, *reads]) == []
    assert last_exchanges([compacted, *reads, work]) == ["› fix it", "  Fixed."]


async def test_a_result_kept_from_before_your_newest_message_is_listed_before_it(tmp_path):
    """Compacted in U4's tool loop, U1's read of notes.md in use: the compaction puts that result before
    U4, joined with it in one request, as the model is sent them (context/compaction/cuts.py kept_before).
    `/history` listed U4 first and the result under it, as if it were U4's first step."""
    import io

    from pydantic_ai.messages import ModelRequest, ToolCallPart, UserPromptPart
    from rich.console import Console

    from compact_agent.agent.run.options import SessionOptions
    from compact_agent.agent.run.runner import AgentSession
    from compact_agent.ui.commands import _history
    from compact_agent.ui.history_view import message_rows
    from tests.context.test_kept_from_an_earlier_turn import PAGE, _compactor, _no_model, _step
    from tests.context.test_kept_from_an_earlier_turn import _history as earlier
    from tests.fakes.openai_server import FakeOpenAIServer

    history = [*earlier(), ModelRequest(parts=[UserPromptPart("U4 now the docs")]),
               *_step(ToolCallPart("read_file", {"path": "docs.md"}, "d1"), PAGE * 4)]
    result = await _compactor({"n1"}).compact(history, summarize=_no_model, archive=lambda: None,
                                              prefer_record=lambda n: True)
    joined = result.messages[2]
    assert [type(p).__name__ for p in joined.parts] == ["ToolReturnPart", "UserPromptPart"]  # as the model reads it
    assert message_rows(joined) == [("tool result", "read_file: NOTE_FLAG is on"), ("you", "U4 now the docs")]
    with FakeOpenAIServer(lambda req: Reply.text("ok")) as server:  # no request is made
        s = AgentSession(SessionOptions(cwd=tmp_path, model="fake-model", base_url=server.base_url, api_key="k",
                                        home=tmp_path / "home"))
        try:
            s.messages = result.messages
            console = Console(record=True, width=120, file=io.StringIO(), force_terminal=False)
            await _history(s, "", console)
        finally:
            s.close()
    listed = rows(console.export_text())
    assert [r[:2] for r in listed[1:6]] == [("1", "tool call"), ("2", "tool result"), ("", "you"),
                                            ("3", "tool call"), ("4", "tool result")], listed
    assert listed[2][2] == "read_file: NOTE_FLAG is on" and listed[3][2] == "U4 now the docs", listed
