"""/expand (Ctrl-O) in a narrow terminal: a line of output longer than the width wraps under its
own text, as a resumed prompt and /status do. At 60 columns the rest of a long line went on at
column 0, under the `⎿`, and read as a line of its own; a declined call's words did the same."""

from __future__ import annotations

import io

from pydantic_ai.messages import ToolCallPart
from rich.console import Console

from compact_agent.agent.safety.permissions import INSTEAD
from compact_agent.ui.expand import Call, show

LONG = ("collected 214 items; tests/agent/test_pipeline.py passed, tests/ui/test_repl.py passed, "
        "tests/e2e/test_print_cli.py passed in 41.2 seconds")


def expanded(output: str, error: bool = False, width: int = 60) -> list[str]:
    c = Console(record=True, width=width, file=io.StringIO(), force_terminal=False)
    show([Call(ToolCallPart("bash", {"command": "make check"}, "1"), output, error, 1)], c)
    return c.export_text().splitlines()


def test_a_long_output_line_wraps_under_its_text() -> None:
    rows = expanded(f"{LONG}\nshort second line\n")
    assert rows[0] == "● bash(make check)"
    assert rows[1].startswith("  ⎿ collected 214 items;"), rows
    body = rows[1:-1]
    assert len(body) > 3 and all(row.startswith("    ") for row in body[1:]), rows  # none at column 0
    assert all(len(row) <= 60 for row in rows), rows
    assert " ".join(row[4:].strip() for row in body[:-1]) == LONG, rows  # no word lost at a wrap
    assert body[-1] == "    short second line" and rows[-1] == "1 tool call in full", rows


def test_an_error_and_a_declined_call_wrap_the_same_way() -> None:
    rows = expanded(LONG, error=True)
    assert all(row.startswith("    ") for row in rows[2:-1]) and len(rows) > 4, rows
    told = f"permission denied: the user declined this call.{INSTEAD} {LONG}"
    rows = expanded(told, error=True)
    assert rows[1].startswith("  ⎿ declined; the model is told: collected"), rows
    assert len(rows) > 4 and all(row.startswith("    ") for row in rows[2:-1]), rows


def test_a_wide_terminal_shows_it_as_before() -> None:
    rows = expanded(f"{LONG}\n  indented\n", width=200)
    assert rows[1:3] == [f"  ⎿ {LONG}", "      indented"], rows
