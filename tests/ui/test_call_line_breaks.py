"""A call whose command spans lines shows where each line breaks on the call's one line: joined by
spaces, `for f in a b; do echo $f` and `done` read as another command (`do echo $f done`), in the
REPL's call lines and in print mode's list of refused calls. An encoding without the mark gets `\\n`."""

from __future__ import annotations

from compact_agent.terminal_text import ASCII_MARKS
from compact_agent.ui import tool_lines


def test_a_line_break_in_a_command_is_shown_and_a_trailing_one_is_not() -> None:
    loop = {"tool": "bash", "args": {"command": "for f in a b; do echo $f\ndone\n"}}
    assert tool_lines.call_line(loop) == "● bash(for f in a b; do echo $f ↵ done)"
    assert tool_lines.call_line({"tool": "bash", "args": {"command": "pytest -q\n"}}) == "● bash(pytest -q)"
    assert tool_lines.whole_call(loop) == "bash(for f in a b; do echo $f\ndone\n)"  # JSON: as it came
    assert ASCII_MARKS["↵"] == "\\n"
