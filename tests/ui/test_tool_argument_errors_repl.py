"""A tool call with arguments that do not fit (one missing, one of the wrong type, one the tool does
not have) is said in plain lines under the call, one per problem, and the model is told the same
with how to call the tool again; the turn goes on. pydantic-ai's validation JSON was both the line
(`⎿ error: {"error":[{"type":"missing","loc":["path"],...`) and what the model read."""

from __future__ import annotations

from tests.fakes.openai_server import Reply, tool_results

from .repl_driver import drive

CALLS = [
    ("read_file", {}),
    ("edit_file", {"path": "a.py", "old_string": 3, "new_string": "x", "bogus": 1}),
    ("read_file", {"path": "a.py"}),
]


def answers(req) -> Reply:
    done = sum(1 for m in req.messages if m.get("role") == "tool")
    return Reply.tools([CALLS[done]]) if done < len(CALLS) else Reply.text("DONE")


async def test_bad_arguments_are_plain_lines_and_the_model_is_told_how_to_retry(tmp_path) -> None:
    (tmp_path / "project").mkdir()
    (tmp_path / "project" / "a.py").write_text("x = 1\n")
    run = await drive(tmp_path, answers, ["go\r"], permission_mode="yes")
    assert "● read_file()\n  ⎿ error: read_file: `path` is missing\n" in run.out, run.out
    assert (
        "  ⎿ error: edit_file: `old_string` must be text, got a number\n"
        "           edit_file: no argument `bogus` (it takes path, old_string, new_string, replace_all)\n"
    ) in run.out
    assert (
        "loc" not in run.out
        and "Field required" not in run.out
        and "DONE" in run.out
        and "⎿ 1 line" in run.out
    )
    missing, wrong = (tool_results(run.server.requests[n])[-1]["content"] for n in (1, 2))
    assert "read_file: `path` is missing" in missing and '"type"' not in missing
    assert "Call read_file again with its arguments fixed: path (text, required)" in missing
    assert "edit_file: no argument `bogus`" in wrong and "Input should" not in wrong


async def test_a_model_that_keeps_sending_a_bad_call_still_ends_the_turn(tmp_path) -> None:
    run = await drive(tmp_path, lambda req: Reply.tools([("read_file", {})]), ["go\r"], permission_mode="yes")
    assert run.out.count("⎿ error: read_file: `path` is missing") == 3, run.out
    assert "the model kept making malformed tool calls (read_file, 4 times in a row)" in " ".join(run.out.split())
    assert "exceeded max retries" not in run.out  # pydantic-ai's words for it, naming a setting we do not have


async def test_expand_and_history_show_the_same_words(tmp_path) -> None:
    """ctrl+o (/expand) shows what the model was told, /history the problems: neither in pydantic-ai's
    `{"error": ...}` wrapper."""
    (tmp_path / "project").mkdir()
    (tmp_path / "project" / "a.py").write_text("x = 1\n")
    run = await drive(tmp_path, answers, ["go\r", "/expand\r", "/history\r"], permission_mode="yes")
    expanded = run.out[run.out.index("⏺ DONE") :]
    assert "  ⎿ read_file: `path` is missing\n    The call was not run. Call read_file again" in expanded, (
        expanded
    )
    assert (
        "tool result  read_file: error: `path` is missing\n" in expanded  # the name once
        and '{"error"' not in run.out
    )
