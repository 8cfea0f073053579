"""/context's heading, `context 1.2k / 32.8k tokens (4%), estimated; auto-compaction at 19.8k`, was
left to the terminal to wrap: in 60 columns it broke as `…; auto-compaction` above a lone `at
19.8k`, in 80 (and beside the grid from 100) `at 100.0k`'s figure stood alone. Where the heading does
not fit, the size and the threshold are a line each, whole."""

from __future__ import annotations

import io

import pytest
from rich.console import Console

from compact_agent.agent.accounting.context_report import ContextPicture
from compact_agent.ui.session_views import OVER_WINDOW, render_context


def shown(p: ContextPicture, width: int) -> list[str]:
    console = Console(width=width, record=True, color_system=None, file=io.StringIO())
    console.print(render_context(p, console.width))  # as /context prints it (session_views.context)
    return [line.rstrip() for line in console.export_text().splitlines()]


PICTURES = {  # (used, window, threshold, provider-reported): the heading's shortest and longest figures
    "small, estimated": (1_200, 32_768, 19_768, False),
    "past the threshold": (110_000, 128_000, 100_000, True),
    "a million-token window": (1_048_576, 1_048_576, 1_000_000, True),
}


def picture(used: int, window: int, threshold: int, anchored: bool) -> ContextPicture:
    return ContextPicture(rows={"system": 300, "tools": 500, "messages": used - 800}, used=used, window=window,
                          threshold=threshold, anchored=anchored, answer_room=8_192, buffer=min(13_000, window // 10),
                          room_source="cap: a quarter of the window")


def k(n: int) -> str:
    return f"{n / 1000:.1f}k"


@pytest.mark.parametrize("width", [60, 80, 100, 120])
@pytest.mark.parametrize("which", PICTURES)
def test_the_heading_breaks_between_its_parts(width: int, which: str) -> None:
    used, window, threshold, anchored = PICTURES[which]
    lines = shown(picture(*PICTURES[which]), width)
    src = "provider-reported" if anchored else "estimated"
    size = f"context {k(used)} / {k(window)} tokens ({100 * used / window:.0f}%), {src}"
    at = next(i for i, line in enumerate(lines) if size in line)
    assert lines[at].endswith(size) or lines[at].endswith(f"{size}; auto-compaction at {k(threshold)}"), lines
    assert lines[at].endswith(size) == (not lines[at].endswith(k(threshold))), lines
    if lines[at].endswith(size):  # the threshold whole on the next line, where the size began
        assert lines[at + 1][lines[at].index("context"):].rstrip() == f"auto-compaction at {k(threshold)}", lines
    assert all(len(line) <= width for line in lines), lines


def test_a_wide_terminal_keeps_it_on_one_line() -> None:
    lines = shown(picture(*PICTURES["small, estimated"]), 140)
    assert any(line.endswith("context 1.2k / 32.8k tokens (4%), estimated; auto-compaction at 19.8k") for line in lines)


def test_a_history_past_the_window_says_each_request_is_shrunk_to_fit() -> None:
    """A server's window learned smaller than the history (a system prompt and an AGENTS.md nearly
    filling it): the heading read `context 5.9k / 3.9k tokens (151%)` and nothing more, as if a
    request that size were sent; each is shrunk to fit by the last resort, and now a line says so."""
    over = shown(picture(5_900, 3_900, 2_700, False), 80)
    assert any("context 5.9k / 3.9k tokens (151%), estimated" in line for line in over), over
    assert any(line.strip().endswith(OVER_WINDOW) for line in over), over
    assert all(len(line) <= 80 for line in over)
    within = shown(picture(*PICTURES["past the threshold"]), 80)
    assert not any(OVER_WINDOW in line for line in within), within
