"""A run of text longer than the answer's column without a space (Chinese or Japanese prose, a long
URL or path, a hash) is folded onto the next lines, never cut: the answer's column was a rich grid
column, whose default overflow is an ellipsis, so the REPL showed `…最終回答：日本語の長い説 …` and
the rest of the paragraph was never shown, live or on resume."""

from __future__ import annotations

import io

import pytest
from pydantic_ai.messages import ModelRequest, ModelResponse, TextPart, UserPromptPart
from rich.console import Console

from compact_agent.ui.history_view import show_last_exchanges
from compact_agent.ui.turn_view import TurnView

JAPANESE = "最終回答：日本語の長い説明です。" * 8
URL = "https://example.org/" + "a1b2c3d4" * 25
ANSWERS = [JAPANESE, f"{JAPANESE}\n\n{JAPANESE}", f"See {URL} for the log.", f"- item\n- {URL}", f"> {JAPANESE}"]


def _console(width: int) -> Console:
    return Console(record=True, width=width, file=io.StringIO(), force_terminal=False)


def _joined(text: str) -> str:
    """Every character shown, the lines joined as the terminal's fold had split them."""
    return "".join(line.strip().lstrip("⏺-▌>").strip() for line in text.splitlines())


@pytest.mark.parametrize("width", [40, 60, 80])
@pytest.mark.parametrize("answer", ANSWERS)
def test_a_long_word_is_folded_not_cut_live_and_on_resume(answer: str, width: int) -> None:
    live = _console(width)
    view = TurnView(live, lambda: 0, spinner=False)
    view.on_text(answer)
    view.end()
    resumed = _console(width)
    show_last_exchanges(resumed, [ModelRequest(parts=[UserPromptPart("go")]), ModelResponse(parts=[TextPart(answer)])])
    for console in (live, resumed):
        text = console.export_text()
        assert "…" not in text, text
        shown = _joined(text)
        for word in (JAPANESE, URL):
            if word in answer:
                assert shown.count(word) == answer.count(word), text
