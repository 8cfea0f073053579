"""An answer looks the same however its stream was cut: each markdown block is rendered on its own
and the blank line between two blocks is drawn by the view, not lost where the stream paused."""

from __future__ import annotations

import io

from pydantic_ai.messages import ModelRequest, ModelResponse, TextPart, UserPromptPart
from rich.console import Console

from compact_agent.ui.history_view import show_last_exchanges
from compact_agent.ui.turn_view import TurnView

ANSWER = """Done: I fixed the division in `calc.py`.

Tool said: **3 passed** in 0.02s.

## Section 23

The first paragraph
spans two lines.

## Section 24

Its paragraph.

- one
- two

```python
def f():

    return 1
```

After the code.

> a quote

Last line."""


def _console() -> Console:
    return Console(record=True, width=70, file=io.StringIO(), force_terminal=False)


def shown(chunks: list[str]) -> str:
    console = _console()
    view = TurnView(console, lambda: 0, spinner=False)
    for chunk in chunks:
        view.on_text(chunk)
    view.end()
    return "\n".join(line.rstrip() for line in console.export_text().splitlines())


def test_the_same_answer_prints_the_same_in_one_chunk_by_line_and_by_token():
    whole = shown([ANSWER])
    assert shown(ANSWER.splitlines(keepends=True)) == whole
    assert shown([ANSWER[i:i + 3] for i in range(0, len(ANSWER), 3)]) == whole
    assert shown(list(ANSWER)) == whole
    # where a pause fell exactly on a block boundary: the paragraph, then its blank line, then the rest
    cut = ANSWER.index("\n\n") + 1
    assert shown([ANSWER[:cut], "\n", ANSWER[cut + 1:]]) == whole
    lines = whole.splitlines()
    first = lines.index("⏺ Done: I fixed the division in calc.py.")
    assert lines[first + 1] == "" and lines[first + 2] == "  Tool said: 3 passed in 0.02s."
    for heading in ("Section 23", "Section 24"):  # a heading has its gap after it, as every block does
        at = lines.index(f"  {heading}")
        assert lines[at - 1] == "" and lines[at + 1] == "", whole


def test_a_resumed_answer_has_the_gaps_the_live_one_had():
    messages = [ModelRequest(parts=[UserPromptPart(content="fix calc")]), ModelResponse(parts=[TextPart(ANSWER)])]
    console = _console()
    show_last_exchanges(console, messages)
    resumed = "\n".join(line.rstrip() for line in console.export_text().splitlines())
    assert resumed == "› fix calc\n" + shown([ANSWER])


def test_a_table_is_one_blank_line_from_the_next_block():
    """rich puts a blank line under a table; with the gap the view draws, the list after it was two
    blank lines down."""
    lines = shown(["Totals:\n\n| a | b |\n|---|---|\n| 1 | 2 |\n\n- one\n- two\n"]).splitlines()
    row = next(i for i, line in enumerate(lines) if line.split() == ["1", "2"])
    assert lines[row + 1] == "" and lines[row + 2].strip() == "• one", lines


def test_a_title_stands_at_the_left_after_the_marker():
    """rich centres a `# Title`: it stood far right of the `⏺`, apart from the words under it."""
    lines = shown(["# Release notes\n\nWhat changed.\n\n### Fixes\n\nOne.\n"]).splitlines()
    assert lines[0] == "⏺ Release notes", lines
    assert "  Fixes" in lines
