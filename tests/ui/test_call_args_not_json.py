"""A tool call whose arguments the model wrote as something other than a JSON object is shown in
our words, as the model wrote them, in the turn, `/expand` and `/history`: pydantic-ai reads them as
`{"INVALID_JSON": "{not json"}`, and that key of its own was the line (`read_file({"INVALID_JSON": …})`)."""

from __future__ import annotations

from tests.fakes.openai_server import Reply

from .repl_driver import drive

CALLS = ["{not json", "[1, 2]"]


def answers(req) -> Reply:
    done = sum(1 for m in req.messages if m.get("role") == "tool")
    return Reply.tools([("read_file", CALLS[done])]) if done < len(CALLS) else Reply.text("DONE")


async def test_arguments_not_json_are_said_in_our_words_wherever_the_call_is_shown(tmp_path) -> None:
    run = await drive(tmp_path, answers, ["go\r", "/expand\r", "/history\r"], permission_mode="yes")
    done, listed = run.out.index("⏺ DONE"), run.out.index("tool calls in full")
    turn, expanded, history = run.out[:done], run.out[done:listed], run.out[listed:]
    for shown in (turn, expanded):
        assert "● read_file(<arguments that are not JSON: {not json>)\n" in shown, shown
        assert "● read_file(<arguments that are not a JSON object: [1, 2]>)\n" in shown, shown
    assert "tool call    read_file(<arguments that are not JSON: {not json>)\n" in history, history
    assert "tool call    read_file(<arguments that are not a JSON object: [1, 2]>)\n" in history, history
    assert "INVALID_JSON" not in run.out


def test_a_long_line_of_them_is_cut_inside_its_brackets() -> None:
    from rich.cells import cell_len

    from compact_agent.ui.tool_lines import call_line

    line = call_line({"tool": "bash", "args": {}, "args_raw": "{" + "x" * 200}, width=60)
    assert line.startswith("● bash(<arguments that are not JSON: {xxx") and line.endswith("…>)"), line
    assert cell_len(line) <= 60
