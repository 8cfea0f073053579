"""A paste that comes as keys (a terminal without bracketed paste) is one burst, and one placeholder,
however slowly the prompt takes its keys in. Timed as they were taken in, the keys of a 120-line
paste came more than a burst's pause apart wherever the prompt drew the input between two reads
(tmux: two placeholders, or more), though the terminal had sent them all at once. They are timed
as they come from the terminal now. A person's keys, far apart, stay apart even when the prompt
takes them in later than they came."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import pytest
from prompt_toolkit.input import create_pipe_input
from prompt_toolkit.output import DummyOutput

from compact_agent.ui.pastes import Pastes
from compact_agent.ui.prompt_input import make_prompt

from .repl_driver import Typist

LOG = "".join(f"log line {i:03d} of the build\n" for i in range(120))  # 3,360 characters: four reads
KEYS = LOG.replace("\n", "\r")  # as the terminal sends it


async def prompt_taken_in_late(tmp_path: Path, keys: Sequence[str | float], pause: float, per_key: float,
                               per_read: float) -> tuple[str, Pastes]:
    """The line one prompt makes of `keys` (typed by a Typist, `pause` apart) and its pastes, the
    prompt taking each key in `per_key` seconds and drawing the input `per_read` seconds after each
    read, by the clock the keys come by."""
    pastes = Pastes()
    with create_pipe_input() as inp:
        typist = Typist(inp, pause)
        prompt = make_prompt(tmp_path / "root", [], tmp_path, pastes=pastes, clock=typist, input=inp,
                             output=DummyOutput())
        processor = prompt.app.key_processor

        def taken(_: object) -> None:
            typist.now += per_key + (0.0 if processor.input_queue else per_read)

        processor.after_key_press += taken
        typist.type(keys)
        line = await prompt.prompt_async("› ")
    return line, pastes


@pytest.mark.parametrize("keys", [
    [KEYS, 1.0, "\r"],  # sent at once: the reads after the first wait while the one before is taken in
    [*(KEYS[i:i + 500] for i in range(0, len(KEYS), 500)), 1.0, "\r"],  # sent in pieces 2 ms apart
], ids=["at-once", "in-pieces"])
async def test_a_paste_taken_in_slowly_is_one_placeholder(tmp_path: Path, keys: list[str | float]) -> None:
    line, pastes = await prompt_taken_in_late(tmp_path, keys, pause=0.002, per_key=0.001, per_read=0.05)
    assert line == "[pasted 120 lines]", line  # not [pasted 36 lines][pasted 37 lines #2]…
    assert pastes.expand(line) == LOG  # the user's Enter, a second later, sent it whole


async def test_keys_typed_apart_and_taken_in_late_stay_apart(tmp_path: Path) -> None:
    # A small paste, then the user's Enter 0.1 s later, which comes while the prompt still takes the
    # paste's keys in (20 ms each): seen waiting then, it came 0.1 s after the paste, and sends it as
    # it does when the paste is taken in at once (not a line break of the paste, waiting behind it).
    line, _ = await prompt_taken_in_late(tmp_path, ["one\rtwo\rthree", "\r", 1.0, "\r"], pause=0.1,
                                         per_key=0.02, per_read=0.05)
    assert line == "one\ntwo\nthree", line
