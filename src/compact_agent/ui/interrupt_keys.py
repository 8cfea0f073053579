"""The keys that stop a turn (or a slash command) while it runs, and what is typed meanwhile.

Esc or Ctrl-C stops the turn (`InterruptKeys`; turn_view.py draws it). The terminal is in raw mode
for the turn so a lone Esc arrives as a key (Ctrl-C too: raw mode turns off the signal), and back
in cooked mode whenever the turn asks the user something (the permission prompt): keys typed before
the question came up are read first, never its answer (`paused`, `hand_over`). Keys typed meanwhile wait for the next prompt, and so
does a paste: bracketed paste is on during the turn as at the prompt, so a paste arrives as one,
is typed ahead whole (as its placeholder when large: pastes.py), and its line breaks do not send
its lines one by one as Enter would. A terminal without bracketed paste sends a paste as keys: those
that come in one burst are taken as one paste too (typed_ahead.py). Ctrl-D on an empty line leaves
the REPL once the turn is over, said at once in one line (typed_ahead.py: typing after it stays).
"""

from __future__ import annotations

import asyncio
import contextlib
import select
import time
from collections.abc import Callable
from typing import Any

from prompt_toolkit.application import Application
from prompt_toolkit.input import Input
from prompt_toolkit.input.typeahead import store_typeahead
from prompt_toolkit.key_binding import KeyPress
from prompt_toolkit.keys import Keys
from prompt_toolkit.output import Output
from prompt_toolkit.utils import is_dumb_terminal

from .answer_enter import word_taken
from .pastes import Pastes
from .typed_ahead import BURST_GAP, TypedAhead

#: How often (seconds) the key reader notes that the loop runs, to tell keys read after a stall.
BEAT = 0.05
#: A key this soon (seconds) after the one before goes on with what was being typed: a question that
#: comes up while the user types waits until they stop this long before it reads a key. A typist's
#: keys come 0.1-0.3 s apart (40-100 words a minute); seeing a question and choosing takes longer.
#: Read at once, the `a` of "please" typed on as the menu came up allowed a command for the session.
SETTLE = 0.5

#: What a Ctrl-D pressed during a turn does, and typing after it.
LEAVING = "Ctrl-D: leaving once this turn is over (Esc stops it now; typing keeps the REPL open)"
#: The same, pressed while a slash command works (Esc does not stop one)
LEAVING_COMMAND = "Ctrl-D: leaving once this command is over (Ctrl-C stops it now; typing keeps the REPL open)"
STAYING = "not leaving: you typed after Ctrl-D"


class InterruptKeys:
    """While a turn runs: Esc or Ctrl-C calls `cancel`. `paused()` hands the terminal back.
    `output` (prompt_toolkit's, the prompt's own) is told to turn bracketed paste on while the keys
    are read; the other keys are typed ahead (typed_ahead.py), a large paste behind its placeholder
    in `pastes`; `clock` tells a paste sent as keys from typing. `say` prints a line above the
    spinner: what a Ctrl-D pressed now does."""

    def __init__(self, inp: Input | None, cancel: Callable[[], object], pastes: Pastes | None = None,
                 output: Output | None = None, clock: Callable[[], float] = time.monotonic,
                 wait: Callable[[float], bool] | None = None) -> None:
        self.inp, self.cancel = inp, cancel
        #: waits up to this many seconds for a key in the terminal: whether one came (`hand_over`)
        self.wait = wait or self._wait
        self.output = output
        self.say: Callable[[str], object] = lambda line: None
        #: Esc stops the work as Ctrl-C does (a turn); a slash command is stopped by Ctrl-C alone
        self.esc_stops = True
        #: what `say` says of a Ctrl-D pressed now: leaving once this turn (or command) is over
        self.leaving_line = LEAVING
        #: Esc or Ctrl-C came while the message waited for the session: its turn stops as it starts
        #: (work_keys.py); a prompt coming first drops it (`take_typed`)
        self.stop_next = False
        self._stack: contextlib.ExitStack | None = None
        self._pauses = 0  # questions up now, one inside another (`paused`)
        #: the keys read stopped the work (Esc or Ctrl-C), since `hand_over` began
        self.stopped = False
        self.clock = clock
        #: The last time keys were read, or could have been: a read long after it follows a stall, or
        #: keys typed between two turns (the prompt reads until its Enter) while the program was busy
        #: before the next one (the session still starting, say)
        self.heard = clock()
        self._beat: asyncio.TimerHandle | None = None
        #: what the user typed ahead during the turn: the text the next prompt starts with, and the
        #: lines ended with Enter, sent in order after it
        self.ahead = TypedAhead(pastes, clock)
        #: `/exit` typed at the permission question (approval.LeaveAsked): the next line, before any typed ahead
        self.leave: str | None = None

    @property
    def typed(self) -> str:
        return self.ahead.typed

    @typed.setter
    def typed(self, text: str) -> None:
        self.ahead.typed = text

    def start(self) -> None:
        if self.inp is None or self._stack is not None:
            return
        stack = contextlib.ExitStack()
        try:
            stack.enter_context(self.inp.raw_mode())
            stack.enter_context(self.inp.attach(self._keys))
        except Exception:  # noqa: BLE001 - no usable terminal: Ctrl-C (SIGINT) still works
            stack.close()
            return
        if self.output is not None:
            stack.callback(self._bracketed_paste, False)
            self._bracketed_paste(True)
        with contextlib.suppress(RuntimeError):  # no loop running: no stall to tell
            self._beat = asyncio.get_running_loop().call_later(BEAT, self._heartbeat)
            stack.callback(self._stop_beat)
        self._stack = stack

    def follow(self, app: Application[Any]) -> None:
        """The REPL's prompt (`app`): its output is told to turn bracketed paste on during a turn
        too, and each key it reads is a read of the terminal, so that keys read at a turn's start
        are measured from the prompt's Enter, not from the turn before (the rest of a paste whose
        first line the prompt sent, a few milliseconds later, was taken for lines typed over the
        whole time the prompt was up)."""
        self.output = app.output
        app.key_processor.before_key_press += self._prompt_key

    def _prompt_key(self, _: object) -> None:
        self.heard = self.clock()

    def _heartbeat(self) -> None:
        """The loop runs: the reader could read now. After a stall, the loop reads the keys that
        piled up before this runs (asyncio runs a ready reader before a timer that came due)."""
        self.heard = self.clock()
        self._stop_beat()
        self._beat = asyncio.get_running_loop().call_later(BEAT, self._heartbeat)

    def _stop_beat(self) -> None:
        if self._beat is not None:
            self._beat.cancel()
            self._beat = None

    def _bracketed_paste(self, on: bool) -> None:
        """Without it, a terminal sends a paste as keys, and each of its line breaks as Enter. A dumb
        terminal (TERM=dumb) is told nothing: it prints what it does not know, as prompt_toolkit's own
        prompt for one sends no sequence either."""
        assert self.output is not None
        if is_dumb_terminal(getattr(self.output, "term", None) or "xterm"):
            return
        with contextlib.suppress(Exception):  # a terminal gone: nothing to tell
            if on:
                self.output.enable_bracketed_paste()
            else:
                self.output.disable_bracketed_paste()
            self.output.flush()

    def stop(self) -> None:
        if self._stack is not None:
            self._stack.close()
            self._stack = None
            self.heard = self.clock()  # keys typed from now on wait unread until the next start

    @contextlib.contextmanager
    def paused(self) -> Any:
        """While the work asks the user something (or an editor runs), until it is answered. The
        question calls what this yields (`hand_over`) right before it reads the keys, once it is laid
        out: what the terminal holds then was typed before the question was there, and is read as
        typed ahead for the next prompt, never as its answer (its Enter allowed a bash command; "yes
        and then…" kept a /compact preview). Pauses inside a pause (a command's question inside
        its work) hand over once; only the outermost gives the keys back to the work."""
        outer = self._pauses == 0
        running = outer and self._stack is not None
        self._pauses += 1
        try:
            yield self.hand_over
        finally:
            self._pauses -= 1
            if outer:
                self.stop()  # nothing asked: the terminal is the work's again all the same
                if running:
                    self.heard = self.clock()  # the question read the keys until it was answered
                    self.start()

    def hand_over(self) -> bool:
        """The terminal to a question, now: the keys typed before it are read first (typed ahead).
        False when they stopped the work (Esc or Ctrl-C, typed before the question was up): the
        question is not to be asked."""
        self.stopped = False
        self.catch_up()
        self._settle()
        self.stop()
        return not self.stopped

    def _settle(self) -> None:
        """Typing under way when the question came up (a key read less than `SETTLE` ago) goes on
        being typed ahead until the user stops for `SETTLE`: the question reads none of it."""
        if self.inp is None:
            return
        while self._stack is not None and not self.stopped:
            quiet = self.clock() - self.ahead.last_read
            if quiet >= SETTLE or not self.wait(SETTLE - quiet):
                return
            self.catch_up(1)

    def _wait(self, seconds: float) -> bool:
        assert self.inp is not None
        try:
            return bool(select.select([self.inp.fileno()], [], [], max(0.0, seconds))[0])
        except (OSError, ValueError):  # no terminal to wait on: nothing more comes
            return False

    @property
    def reading(self) -> bool:
        """Whether the keys are being read now (between `start` and `stop`, not paused)."""
        return self._stack is not None

    def catch_up(self, reads: int = 64) -> None:
        """Read what the terminal holds now (a read is a kilobyte at most): keys typed while the loop
        was busy, read here rather than by the next prompt, which takes keys that come in one read
        for a paste and joins their lines."""
        if self.inp is None or self._stack is None:
            return
        for _ in range(reads):
            keys = self.inp.read_keys() + self.inp.flush_keys()
            if not keys:
                return
            self._take(keys)

    def _keys(self) -> None:
        assert self.inp is not None
        self._take(self.inp.read_keys() + self.inp.flush_keys())  # a lone Esc waits for a flush

    def _take(self, keys: list[KeyPress]) -> None:
        if self.inp is not None:  # `es⏎` after the menu's `y`: its answer's, not typed ahead
            keys = word_taken(self.inp, keys, self.heard, self.clock())
        if any(k.key == Keys.ControlC or (k.key == Keys.Escape and self.esc_stops) for k in keys):
            self.stopped = True
            self.cancel()
            return
        leaving = self.ahead.leaving
        now = self.clock()
        stalled, self.heard = now - self.heard, now
        self.ahead.read(keys, stalled)
        with contextlib.suppress(RuntimeError):  # a line ended with Enter is saved once no key follows at once
            asyncio.get_running_loop().call_later(2 * BURST_GAP, self.ahead.settle_quiet)
        if self.ahead.leaving != leaving:
            self.say(self.leaving_line if self.ahead.leaving else STAYING)

    def take_typed(self) -> str:
        """What the next prompt starts with. After a Ctrl-D typed ahead on an empty line, the prompt
        gets that Ctrl-D as its first key, and leaves as Ctrl-D at an empty prompt does."""
        typed = self.ahead.take_typed()
        self.stop_next = False  # what it was for did not run a turn (a command): nothing left to stop
        if self.ahead.leaving:
            self.ahead.leaving = False
            if self.inp is not None and not typed:
                store_typeahead(self.inp, [KeyPress(Keys.ControlD, "\x04")])
        return typed

    def take_queued(self) -> str | None:
        """The next line to run after the turn: `/exit` typed at its question, else one typed ahead
        (those stay unsent, and the next REPL to open the session says them: typed_ahead.py)."""
        if (leave := self.leave) is not None:
            self.leave = None
            return leave
        return self.ahead.take_queued()
