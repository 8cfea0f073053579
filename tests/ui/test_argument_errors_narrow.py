"""A call's argument problems are a line each under the call, aligned after `⎿ error: `. In an
80-column terminal the second problem (`edit_file: no argument `bogus` (it takes path,
old_string, new_string, replace_all)`), indented to line up, ran past the edge and the terminal
wrapped its end to column 0, under nothing. Each problem now wraps within the terminal, its
continuation indented under the problem's text."""

from __future__ import annotations

import io

from rich.console import Console

from compact_agent.ui.tool_lines import result_line

from .repl_driver import drive
from .test_tool_argument_errors_repl import answers

SECOND = "edit_file: no argument `bogus` (it takes path, old_string, new_string, replace_all)"


def _lines(out: str) -> list[str]:
    at = out.index("⎿ error: edit_file:")
    start = out.rindex("\n", 0, at) + 1
    return out[start:].splitlines()[:4]


async def test_each_problem_stays_aligned_in_a_narrow_terminal(tmp_path) -> None:
    (tmp_path / "project").mkdir()
    (tmp_path / "project" / "a.py").write_text("x = 1\n")
    console = Console(record=True, width=80, file=io.StringIO(), force_terminal=False)
    run = await drive(tmp_path, answers, ["go\r"], permission_mode="yes", console=console)
    first, *rest = _lines(run.out)
    assert first == "  ⎿ error: edit_file: `old_string` must be text, got a number", run.out
    problem = [rest[0]] + [ln for ln in rest[1:] if ln.startswith(" " * 13)]  # the second, and its wrapped end
    assert rest[0].startswith(" " * 11 + "edit_file: no argument"), rest
    assert all(len(ln) <= 80 for ln in problem), problem
    assert " ".join(" ".join(problem).split()) == SECOND, problem


def test_a_problem_wider_than_the_line_wraps_under_itself() -> None:
    obj = {"type": "tool_result", "tool": "edit_file", "error": True,
           "summary": "edit_file: `old_string` must be text, got a number\n" + SECOND}
    lines = result_line(obj, 70).splitlines()
    assert lines[0] == "  ⎿ error: edit_file: `old_string` must be text, got a number"
    assert lines[1].startswith(" " * 11 + "edit_file: ") and all(ln.startswith(" " * 13) for ln in lines[2:])
    assert len(lines) > 2 and all(len(ln) <= 70 for ln in lines)
    assert " ".join(" ".join(lines[1:]).split()) == SECOND
