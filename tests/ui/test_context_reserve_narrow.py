"""/context's reserve row names what sized the room for an answer: `reserved: answer 8.2k (cap: a
quarter of the window) + buffer 13.0k`. In a 60-column terminal (and at 100, the grid beside the
legend) the label wrapped onto a second line under the figures, its end orphaned. Where it does
not fit, the sizes stay on the row and what sized the answer goes on a row of its own."""

from __future__ import annotations

import io
import re

import pytest
from rich.console import Console

from compact_agent.agent.accounting.context_report import ContextPicture
from compact_agent.ui.session_views import render_context

SOURCES = ["cap: a quarter of the window", "1.25x longest answer so far", "cap: summary_output_reserve",
           "room for a summary", "the minimum", "cap: the model's max output"]


def shown(p: ContextPicture, width: int) -> list[str]:
    console = Console(width=width, record=True, color_system=None, file=io.StringIO())
    console.print(render_context(p, width))
    return [line.rstrip() for line in console.export_text().splitlines()]


def picture(source: str, used: int = 28_000) -> ContextPicture:
    return ContextPicture(rows={"system": 3_000, "tools": 5_000, "messages": used - 8_000}, used=used,
                          window=128_000, threshold=100_000, anchored=True, answer_room=8_192, buffer=13_000,
                          room_source=source)


@pytest.mark.parametrize("width", [60, 80, 100, 120])
@pytest.mark.parametrize("source", SOURCES)
@pytest.mark.parametrize("used", [28_000, 110_000])  # under the threshold; past it ("what is left")
def test_the_reserve_rows_do_not_wrap(width: int, source: str, used: int) -> None:
    lines = shown(picture(source, used), width)
    at = next(i for i, line in enumerate(lines) if "reserved" in line)
    assert lines[at].endswith("%"), lines  # the reserve's figures on its label's line: nothing wrapped
    if source in lines[at]:
        assert "answer 8.2k" in lines[at] and "buffer 13.0k" in lines[at], lines
    else:  # its parts under it, each whole on its line with its size
        assert re.search(rf"   answer \({re.escape(source)}\) +8\.2k$", lines[at + 1]), lines
        assert re.search(r"   auto-compact buffer +13\.0k$", lines[at + 2]), lines
    assert all(len(line) <= width for line in lines)


def test_a_wide_terminal_keeps_the_one_line_row() -> None:
    lines = shown(picture("cap: a quarter of the window"), 140)
    assert any("reserved: answer 8.2k (cap: a quarter of the window) + buffer 13.0k" in line for line in lines), lines


@pytest.mark.parametrize("source", SOURCES)
def test_at_40_columns_a_part_that_wraps_goes_on_under_itself(source: str) -> None:
    lines = shown(picture(source), 40)
    at = next(i for i, line in enumerate(lines) if "reserved" in line)
    answer = []
    for line in lines[at + 1:]:
        if "auto-compact buffer" in line:
            break
        answer.append(line)
    assert answer and all(line.startswith("    ") for line in answer), lines  # two columns in, every line
    assert " ".join(line.split("8.2k")[0].strip() for line in answer) == f"answer ({source})", lines
    assert re.search(r"^    auto-compact buffer +13\.0k$", lines[at + 1 + len(answer)]), lines
    assert all(len(line) <= 40 for line in lines)


@pytest.mark.parametrize("source", SOURCES)
def test_at_40_columns_a_wrapped_part_has_its_size_after_its_last_words(source: str) -> None:
    """The size stood on the first line of a part that wraps: `answer (cap: a quarter of  8.2k`, then
    `the window)`, which reads as a quarter of 8.2k. It goes after the label's end now."""
    lines = shown(picture(source), 40)
    at = next(i for i, line in enumerate(lines) if "auto-compact buffer" in line)
    answer = next(i for i, line in enumerate(lines) if line.startswith("    answer ("))
    assert re.search(r"\) +8\.2k$", lines[at - 1]), lines
    assert all("8.2k" not in line for line in lines[answer:at - 1]), lines
