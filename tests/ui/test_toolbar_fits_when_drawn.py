"""The toolbar is fitted to the terminal's width each time it is drawn: after a resize it kept the
text made for the old width, cut mid-number until the next prompt (`… · context 1.2k/32.8`). With
--yes the mark is shortened (`⏵⏵ --yes`) before anything is left out, and the context figure stays
longest: at 40 columns only `⏵⏵ bypass permissions (--yes)` was left, at 20 it was cut mid-word."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from prompt_toolkit.application.current import set_app
from prompt_toolkit.data_structures import Size

from tests.fakes.openai_server import Reply

from .repl_driver import drive

FULL = " ⏵⏵ bypass permissions (--yes) · context 1.2k/32.8k (4%) · $0.0012 · fake-model"


def test_the_mark_is_shortened_first_and_the_context_figure_stays_longest() -> None:
    from compact_agent.ui.toolbar import fit

    assert fit(FULL, 80) == FULL
    assert fit(FULL, 60) == " ⏵⏵ --yes · context 1.2k/32.8k (4%) · $0.0012 · fake-model"
    assert fit(FULL, 50) == " ⏵⏵ --yes · context 1.2k/32.8k (4%) · fake-model"
    assert fit(FULL, 40) == " ⏵⏵ --yes · context 1.2k/32.8k (4%)"
    assert fit(FULL, 30) == " context 1.2k/32.8k (4%)"
    assert fit(FULL, 20) == fit(FULL, 12) == " context 4%"
    assert fit(" context 1.2k/32.8k (4%) · $0.0012 · fake-model", 40) == " context 1.2k/32.8k (4%) · fake-model"
    assert fit(" ⏵⏵ bypass permissions (--yes) · starting… · fake-model", 30) == " ⏵⏵ --yes · starting…"


async def test_the_repl_toolbar_is_fitted_to_the_width_it_is_drawn_at(tmp_path: Path) -> None:
    from compact_agent.ui.command_registry import current_repl

    drawn: list[str] = []

    def at_prompt() -> None:
        r: Any = current_repl()
        app = r.prompt.app
        with set_app(app):
            for cols in (200, 40, 20):  # what a resize changes; prompt_toolkit redraws the toolbar then
                app.output.get_size = lambda cols=cols: Size(rows=24, columns=cols)
                toolbar = r.prompt.bottom_toolbar
                assert callable(toolbar)
                drawn.append(toolbar())

    await drive(tmp_path, lambda req: Reply.text("ok"), ["hi\r"], permission_mode="yes", at_prompt=at_prompt)
    wide, narrow, narrowest = drawn[-3:]
    assert wide.startswith(" ⏵⏵ bypass permissions (--yes) · context ") and wide.endswith(" · fake-model")
    assert narrow.startswith(" ⏵⏵ --yes · context ") and narrow.endswith("%)") and len(narrow) <= 38
    assert narrowest.startswith(" context ") and narrowest.endswith("%") and len(narrowest) <= 18
