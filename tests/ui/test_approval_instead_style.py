"""After "No, and tell the model what to do instead", the call's result line showed the user's own
words in red, as an error (`⎿ error: permission denied: the user declined this bash call. The
user's instruction (follow it i…`), cut before the words. It is the user's answer, not a failure:
the line says the call was declined and what the model is told, whole, in the neutral style of a
result (the one line that says it: test_approval_instead_once.py)."""

from __future__ import annotations

import io
from pathlib import Path

from rich.console import Console

from compact_agent.agent.safety.permissions import INSTEAD
from compact_agent.ui.tool_lines import result_line

from .repl_driver import drive
from .test_approval_instead import bash_then_told

RED, YELLOW = "\x1b[31m", "\x1b[33m"


async def test_the_instruction_is_not_shown_as_an_error(tmp_path: Path) -> None:
    console = Console(record=True, width=120, file=io.StringIO(), force_terminal=True, color_system="standard")
    export = console.export_text
    console.export_text = lambda **_: export(styles=True)  # type: ignore[method-assign]
    run = await drive(tmp_path, bash_then_told, ["run it\r"], answers="Run Make Check\n", console=console)
    lines = [line for line in run.out.splitlines() if "Run Make Check" in line and "DONE" not in line]
    assert len(lines) == 1, run.out  # the call's result (the confirmation under the question said it again)
    for line in lines:
        assert RED not in line and YELLOW not in line, repr(line)
    result = next(line for line in lines if "⎿" in line)
    assert "error" not in result and "declined; the model is told: Run Make Check" in result, repr(result)


def test_the_result_line_of_a_call_declined_with_an_instruction() -> None:
    content = f"permission denied: the user declined this bash call. {INSTEAD} use pytest -q instead"
    obj = {"type": "tool_result", "tool": "bash", "error": True, "summary": content, "content": content}
    assert result_line(obj) == "  ⎿ declined; the model is told: use pytest -q instead"
