"""Enter in a Ctrl-R search takes the line found into the input, as prompt_toolkit and readline do,
and a second Enter sends it. The REPL's own Enter (send) answered the search's Enter too: the match
was thrown away, the half-typed line came back and the search stayed open with an empty query."""

from __future__ import annotations

import asyncio
from pathlib import Path

from prompt_toolkit.input import create_pipe_input
from prompt_toolkit.output import DummyOutput

from compact_agent.ui.prompt_input import make_prompt

CTRL_R = "\x12"


async def test_enter_in_a_search_takes_the_match_then_enter_sends_it(tmp_path: Path) -> None:
    with create_pipe_input() as inp:
        p = make_prompt(tmp_path / "root", [], tmp_path, input=inp, output=DummyOutput())
        inp.send_text("alpha one\r")
        assert await p.prompt_async("› ") == "alpha one"
        inp.send_text(f"half typed{CTRL_R}alpha\r")  # the match taken into the input, nothing sent
        inp.send_text("\x1b[F and more\r")  # typed on at its end (End: the cursor is where it matched), sent
        # without the search's own Enter the prompt never returns: the search stays open
        assert await asyncio.wait_for(p.prompt_async("› "), 10) == "alpha one and more"
