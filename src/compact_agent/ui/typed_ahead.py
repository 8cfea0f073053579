"""What the user types while a turn runs, kept for after it: the text the next prompt starts with,
and the lines ended with Enter, sent in order once the turn is over.

A paste is typed ahead whole. Bracketed paste is on during the turn, so most terminals send a
paste as one key (interrupt_keys.InterruptKeys); one without it (or with it off) sends the paste as
keys, each line break an Enter, and a 20-line log became 20 messages queued after the turn. Keys
from a paste come all at once: many in one read, or reads a few milliseconds apart; a person
types a key or two a read, tens of milliseconds apart. So the keys of one read, and of the reads
that follow it within `BURST_GAP` (by the clock given, never a sleep), are taken together, and
when they hold a line break with more after it they are a paste: typed ahead as a bracketed one
is, behind its placeholder when large (pastes.py), its line breaks sending nothing. A line typed
and ended with Enter in one read ("fix it⏎" from a quick typist) is still sent after the turn.

Keys pile up unread while the program stalls (its loop busy): lines typed then came in one read
and were joined as one paste, waiting unsent in the next prompt. The key reader says how long it
could not read before a read (`stalled`, interrupt_keys.InterruptKeys); a burst no longer than a fast
typist types in that time (`TYPING_RATE`) is typing, each Enter ending a line; more is a paste.

Ctrl-D on an empty line typed ahead is the REPL's Ctrl-D at an empty prompt, kept for the end of the
turn (`leaving`): the lines typed ahead with Enter before it are sent first, then the REPL leaves.
Text typed after it (a character, a paste) keeps the REPL open, as text at a prompt does.

A line ended with Enter is saved the moment it is (`on_line`, once no key follows it within
`BURST_GAP`: `settle_quiet`): in the up-arrow history and in the session's folder (prompt_history.Unsent), until
it is taken to be sent. A run ended before then (a closed terminal, a kill) loses none of it, and
the next REPL to open the session says it.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable

from prompt_toolkit.key_binding import KeyPress
from prompt_toolkit.keys import Keys

from ..session.prompt_history import Unsent
from .paste_lookalikes import typed_on
from .pastes import Pastes, as_typed

#: Reads closer than this (seconds) are one burst of keys: a terminal's paste, not typing.
BURST_GAP = 0.025
#: Characters a second a fast typist keeps up (about 200 words a minute): keys read after a stall
#: that many a second of it or fewer may have been typed during it.
TYPING_RATE = 20.0
#: A read this long (seconds) after the reader last could read is one after a stall.
STALL = 0.25


def is_paste(text: str) -> bool:
    """Keys that came together and hold a line break with more after it (an Enter at the end is
    a line sent)."""
    return "\n" in as_typed(text).removesuffix("\n")


class TypedAhead:
    """The keys of a turn, as what the next prompt starts with (`typed`) and the lines to send
    after it (`take_queued`). `pastes` holds a large paste behind its placeholder."""

    def __init__(self, pastes: Pastes | None = None, clock: Callable[[], float] = time.monotonic) -> None:
        self.pastes, self.clock = pastes, clock
        self._typed = ""
        self._queued: list[str] = []
        self._burst: list[str] = []  # the keys of the burst still coming, taken in by `_settle`
        self._last = float("-inf")  # when the burst's latest read came
        self._could_type = 0.0  # characters of the burst a person could have typed while the program stalled
        #: Ctrl-D was pressed on an empty line, and nothing typed since: leave once the turn is over
        self.leaving = False
        #: told of each line ended with Enter as it is queued, and of each taken to be sent
        self.on_line: Callable[[str], object] = lambda line: None
        self.on_taken: Callable[[str], object] = lambda line: None
        #: the record of its lines not yet sent, and of those an earlier run left (repl_building.py)
        self.unsent: Unsent | None = None

    @property
    def typed(self) -> str:
        self._settle()
        return self._typed

    @typed.setter
    def typed(self, text: str) -> None:  # /rewind puts a prompt back
        self._settle()
        self._typed = text

    @property
    def last_read(self) -> float:
        """When keys were last read (the clock's time; -inf before any)."""
        return self._last

    def read(self, keys: Iterable[KeyPress], stalled: float = 0.0) -> None:
        """The keys of one read of the terminal, `stalled` seconds after the reader last could read."""
        now = self.clock()
        if now - self._last > BURST_GAP:
            self._settle()
        self._last = now
        if stalled >= STALL:
            self._could_type += stalled * TYPING_RATE
        for k in keys:
            if k.key == Keys.ControlD:
                self._settle()
                self.leaving = self.leaving or not self._typed.strip()  # on a line with text it does nothing
                continue
            if k.data.strip() and (k.key == Keys.BracketedPaste or len(k.data) == 1):
                self.leaving = False  # typing after Ctrl-D (text, not a key that moves): the user goes on
            if k.key == Keys.BracketedPaste:  # typed ahead as the prompt takes a paste
                self._settle()
                self._paste(k.data)
            elif k.data in ("\r", "\n", "\t") or (len(k.data) == 1 and k.data.isprintable()):
                self._burst.append(k.data)

    def _paste(self, data: str) -> None:
        if self.pastes is None:
            self._typed += as_typed(data)
            return
        held = len(self.pastes.held)
        text = self.pastes.insert(data, "\0".join([*self._queued, self._typed]))
        if len(self.pastes.held) > held:
            self._typed += text  # its placeholder
        else:
            self._type(text)  # a small paste: typed text, whatever its words

    def _type(self, text: str) -> None:
        """Keys typed ahead: no held placeholder's words made of them, in this line or in one queued
        (paste_lookalikes.py; no key typed is NUL)."""
        if self.pastes is None or "\0" in text:
            self._typed += text
            return
        *self._queued, self._typed = typed_on(self.pastes, "\0".join([*self._queued, self._typed]), text).split("\0")

    def _settle(self) -> None:
        """The burst of keys so far, taken in: a paste whole, or keys one by one (Enter ends a line)."""
        text = "".join(self._burst)
        self._burst.clear()
        typed, self._could_type = len(text) <= self._could_type, 0.0  # typed while the program stalled
        if is_paste(text) and not typed:
            self._paste(text)
            return
        for ch in text:
            if ch in ("\r", "\n"):  # Enter ends a line typed ahead: it is sent when the turn is over
                if self._typed.strip():
                    self._queued.append(self._typed)
                    self.on_line(self._typed)
                self._typed = ""
            elif ch != "\t":  # Tab completes at the prompt: typed ahead, it is nothing
                self._type(ch)

    def take_typed(self) -> str:
        typed, self.typed = self.typed, ""
        return typed

    def take_queued(self) -> str | None:
        """The next line typed ahead with Enter during a turn, if any (it used to stay in the next
        prompt unsent, and the next thing typed was joined to it: "chat hello/exit")."""
        self._settle()
        if not self._queued:
            return None
        line = self._queued.pop(0)
        self.on_taken(line)
        return line

    def settle_quiet(self) -> None:
        """The keys read so far taken in once no more came within `BURST_GAP` (a line ended with
        Enter is then saved: `on_line`), rather than when the next key, or the turn's end, comes."""
        if self._burst and self.clock() - self._last > BURST_GAP:
            self._settle()

