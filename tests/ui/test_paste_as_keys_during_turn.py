"""A terminal without bracketed paste sends a paste made during a turn as keys, each line break an
Enter: a 20-line log became 20 messages sent one after the other once the turn was over. Keys that
come together (in one read, or reads closer than BURST_GAP by the clock given) holding a line break
with more after it are one paste now: it waits in the next prompt, behind its placeholder when
large, and nothing is sent by its line breaks. Typing, and a line ended with Enter, are as before."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from prompt_toolkit.key_binding import KeyPress
from prompt_toolkit.keys import Keys

from compact_agent.ui.pastes import Pastes
from compact_agent.ui.typed_ahead import BURST_GAP, TypedAhead
from tests.fakes.openai_server import Reply

from .repl_driver import drive

LOG = "".join(f"log line {i:02d} of the build\n" for i in range(20))


def as_keys(text: str) -> list[KeyPress]:
    """`text` as the terminal's keys: Enter is `\\r` (ControlM), every other character a key."""
    return [KeyPress(Keys.ControlM if ch == "\r" else ch, ch) for ch in text]


class Clock:
    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


async def test_a_paste_sent_as_keys_during_a_turn_waits_in_the_next_prompt(tmp_path: Path) -> None:
    keys: list[Any] = []

    def answer(req: Any) -> Reply:
        if req.last_user_text() == "first":
            keys[0].send_text(LOG.replace("\n", "\r"))  # no paste markers: keys, each line break an Enter
        return Reply.text(f"ANSWER {len(req.last_user_text())}")

    run = await drive(tmp_path, answer, ["first\r", " what failed?\r"], pipe=keys)
    assert run.prompts == ["first", LOG + " what failed?"], run.prompts  # not 20 messages of a line each


def test_reads_of_one_paste_a_moment_apart_are_one_paste() -> None:
    clock, pastes = Clock(), Pastes()
    ahead = TypedAhead(pastes, clock)
    sent = LOG.replace("\n", "\r")
    for i in range(0, len(sent), 64):  # a terminal's chunks, each a read, a millisecond apart
        ahead.read(as_keys(sent[i:i + 64]))
        clock.now += 0.001
    assert ahead.take_queued() is None
    typed = ahead.take_typed()
    assert typed == "[pasted 20 lines]" and pastes.expand(typed) == LOG


def test_typing_and_enter_during_a_turn_send_lines_as_before() -> None:
    clock = Clock()
    ahead = TypedAhead(Pastes(), clock)
    for ch in "fix it\rthen test":  # a key a read, a tenth of a second apart
        ahead.read(as_keys(ch))
        clock.now += 0.1
    ahead.read(as_keys("s\r"))  # a quick typist: the last key and Enter in one read
    assert [ahead.take_queued(), ahead.take_queued(), ahead.take_queued()] == ["fix it", "then tests", None]
    assert ahead.take_typed() == ""


def test_a_burst_after_a_pause_is_a_paste_of_its_own() -> None:
    clock, pastes = Clock(), Pastes()
    ahead = TypedAhead(pastes, clock)
    ahead.read(as_keys("see:"))
    clock.now += BURST_GAP * 4  # typed, then a pause, then the paste
    ahead.read(as_keys(" a\rb\rc\r"))
    assert ahead.take_queued() is None
    assert ahead.take_typed() == "see: a\nb\nc\n"  # small: in the input as it is, not sent

