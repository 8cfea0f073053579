"""Lines typed while the program stalls (its loop busy, the terminal unread) come in one read, as a
paste sent as keys does: they were joined as one paste, waiting unsent in the next prompt. The key
reader knows how long it could not read (a heartbeat on the loop); a burst no longer than a fast
typist types in that time is typing, each Enter ending a line sent after the turn. More is still a
paste, and keys read with no stall before them are judged as before."""

from __future__ import annotations

from prompt_toolkit.application import Application
from prompt_toolkit.input import create_pipe_input
from prompt_toolkit.output import DummyOutput

from compact_agent.ui.interrupt_keys import BEAT, InterruptKeys
from compact_agent.ui.pastes import Pastes
from compact_agent.ui.typed_ahead import STALL, TypedAhead

from .test_paste_as_keys_during_turn import LOG, Clock, as_keys


def test_lines_typed_during_a_stall_are_lines() -> None:
    ahead = TypedAhead(Pastes(), Clock())
    ahead.read(as_keys("fix it\rthen tests\r"), stalled=2.0)  # 18 keys in the 2 s the program did not read
    assert [ahead.take_queued(), ahead.take_queued(), ahead.take_queued()] == ["fix it", "then tests", None]


def test_more_than_a_person_types_in_the_stall_is_a_paste() -> None:
    pastes = Pastes()
    ahead = TypedAhead(pastes, Clock())
    ahead.read(as_keys(LOG.replace("\n", "\r")), stalled=2.0)  # 560 keys in 2 s: no one types that fast
    assert ahead.take_queued() is None
    typed = ahead.take_typed()
    assert typed == "[pasted 20 lines]" and pastes.expand(typed) == LOG


def test_the_reader_measures_the_stall_from_the_last_time_it_could_read() -> None:
    for stall, queued in ((2.0, ["fix it", "then tests"]), (0.01, [])):
        clock = Clock()
        with create_pipe_input() as inp:
            keys = InterruptKeys(inp, lambda: None, Pastes(), clock=clock)
            keys.heard = clock.now  # the heartbeat's last beat
            clock.now += stall
            inp.send_text("fix it\rthen tests\r")
            keys._keys()
            got = [line for line in iter(keys.take_queued, None)]
            assert got == queued, (stall, got)
            assert keys.take_typed() == ("" if queued else "fix it\nthen tests\n")  # no stall: a paste, as before


async def test_the_heartbeat_runs_while_keys_are_read() -> None:
    clock = Clock()
    with create_pipe_input() as inp:
        keys = InterruptKeys(inp, lambda: None, clock=clock)
        keys.start()
        try:
            first = keys._beat
            assert first is not None and BEAT < STALL  # it beats more often than a stall lasts
            clock.now += 5
            keys._heartbeat()  # the loop ran: the reader could read now
            assert keys.heard == clock.now and first.cancelled() and keys._beat is not None
        finally:
            keys.stop()
        assert keys._beat is None


async def test_lines_typed_while_the_next_turn_was_not_yet_reading_are_lines() -> None:
    clock = Clock()
    with create_pipe_input() as inp:
        keys = InterruptKeys(inp, lambda: None, Pastes(), clock=clock)
        keys.start()
        keys.stop()  # a turn ends; the prompt reads up to its Enter, then the session is still starting
        clock.now += 2.0
        inp.send_text("fix it\rthen tests\r")  # typed meanwhile, unread until the turn's reader starts
        keys.start()
        try:
            keys._keys()
        finally:
            keys.stop()
        assert [line for line in iter(keys.take_queued, None)] == ["fix it", "then tests"]


async def test_a_turn_measures_its_first_read_from_the_prompts_last_key() -> None:
    clock = Clock()
    with create_pipe_input() as inp:
        keys = InterruptKeys(inp, lambda: None, Pastes(), clock=clock)
        prompt = Application(input=inp, output=DummyOutput())
        keys.follow(prompt)
        keys.start()
        keys.stop()  # a turn ends; the prompt is up a minute, then its Enter sends a line
        clock.now += 60
        prompt.key_processor.before_key_press.fire()
        clock.now += 0.01
        inp.send_text("rest of\ra paste\r")  # what a terminal without bracketed paste sent after that Enter
        keys.start()
        try:
            keys._keys()
        finally:
            keys.stop()
        assert keys.take_queued() is None and keys.take_typed() == "rest of\na paste\n"  # one paste, as before


async def test_keys_after_a_question_are_measured_from_its_answer() -> None:
    clock = Clock()
    with create_pipe_input() as inp:
        keys = InterruptKeys(inp, lambda: None, Pastes(), clock=clock)
        keys.start()  # on the loop: the reader attached
        try:
            assert keys._stack is not None
            with keys.paused():  # the permission menu reads the keys for a minute
                clock.now += 60
            clock.now += 0.01
            inp.send_text("rest of\ra paste\r")  # what a terminal without bracketed paste sent after its answer
            keys._keys()
        finally:
            keys.stop()
        assert keys.take_queued() is None and keys.take_typed() == "rest of\na paste\n"  # one paste, as before
