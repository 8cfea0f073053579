"""A paste that reaches the prompt as keys stays in the input, one message, until the user sends it.

Most terminals mark a paste (bracketed paste) and the prompt takes it whole (pastes.py). One without
it, or with it off, sends the paste as keys, each line break an Enter: a 20-line log pasted at the
prompt was sent at its first line break, and each later line became a message of its own. Keys of a
paste come all at once: the line break of a paste has more keys right behind it, already read from
the terminal and waiting in prompt_toolkit's key queue when its Enter is taken, or coming in the
next read of the same burst, a few milliseconds later (reads of the terminal are a kilobyte at a
time). A person's Enter has nothing behind it yet. So an Enter is a line break of the input, not a
send, when keys are waiting behind it, or when it comes in a burst of keys that already held such a
line break: the paste's last line break, or one at the edge of two reads. Anything else (a person's
Enter, the Enter a quick typist's last key came with) sends at once. A paste's text is taken as
pasted: a line ending in `\\` keeps it (a line break typed after `\\` is the way to start a new line,
prompt_input.py).

A burst is told by when its keys came from the terminal, not by when they are taken in: taking in
a kilobyte of keys and drawing the input can take longer than the pause that ends a burst, and a
120-line paste timed as taken in was cut into several bursts, each behind a placeholder of its own.
The keys of one read came together. The keys of the next read came when they were first seen
waiting unread (looked for right after each read and after each key taken in), or else when they
were read; closer than `BURST_GAP` (by the clock given) after the keys before them were read, they
are the same burst, however long those took to take in. Keys that came far apart are not: a person's
keys, seen only once typed, stay apart even when the program takes them in late.

A large paste that comes as keys is then held behind its placeholder, as a bracketed one is
(pastes.py): at the end of each read of a burst whose line break was taken as a paste's, the text
the burst put into the input goes behind `[pasted 40 lines]` once it is more than a small paste,
and the burst's next reads join it (the placeholder worded anew for the whole). The line sent has
the paste whole. What a person types is never held: it comes a key or two a read, and an Enter of
theirs has no keys behind it (keys that piled up while the program stalled may, and are then held
as a paste is, their words unchanged in the line sent).

Not covered: a paste whose first line break is the last key of a read, its next lines in the next
read (the first line of 1,023 characters or more, or a link that cuts the paste there); its first
line is sent, and the rest waits in the next prompt as one paste (typed_ahead.py).
"""

from __future__ import annotations

import select
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any

from prompt_toolkit.application import Application
from prompt_toolkit.document import Document
from prompt_toolkit.key_binding import KeyPress, KeyPressEvent
from prompt_toolkit.keys import Keys

from .pastes import Pastes
from .typed_ahead import BURST_GAP


def typed_text(key: KeyPress) -> bool:
    """A key that is text of the input (a character, a line break, a paste), not an answer of the
    terminal (its cursor position) or a key that does something."""
    return key.key == Keys.BracketedPaste or key.data in ("\r", "\n", "\t") or (
        len(key.data) == 1 and key.data.isprintable())


@dataclass
class _Burst:
    """The input as a burst of keys found it (its text, the cursor: where the keys go), and the
    placeholder its paste is held behind so far."""

    before: str
    start: int
    name: str | None = None


class PasteKeys:
    """Tells, of each Enter, whether it is a paste's line break: at the prompt (prompt_input.py)
    and in the answer to what to do instead of a declined call (approval.instruction). `watch` the
    input's application, which tells it when keys are read and when a new input starts; its Enter
    key asks `line_break` first. `clock` times the reads; when it can also say whether keys wait
    unread (`clock.waiting()`: the tests' typist, whose keys come by its clock, not when they are
    written), it is asked that too, else the terminal is."""

    def __init__(self, clock: Callable[[], float] = time.monotonic) -> None:
        self.clock = clock
        self.waiting: Callable[[], bool] = getattr(clock, "waiting", self._unread)
        self.read_at = float("-inf")  # when the keys being taken in were read
        self.seen: float | None = None  # when keys were first seen waiting behind them (None: not yet)
        self.breaks = 0  # line breaks of the current burst of keys taken as a paste's
        self.app: Application[Any] | None = None
        self.pastes: Pastes | None = None  # where a large paste's text is held (None: it stays in the input)
        self.burst: _Burst | None = None

    def watch(self, app: Application[Any], pastes: Pastes | None = None) -> None:
        """Follow `app`'s keys; with `pastes`, a large paste that came as keys goes behind its placeholder."""
        self.app, self.pastes = app, pastes
        processor = app.key_processor
        feed = processor.feed_multiple

        def fed(key_presses: list[KeyPress], first: bool = False) -> None:
            if key_presses and not first:  # keys read from the terminal, not keys a key binding puts back
                self.came()
            feed(key_presses, first)

        processor.feed_multiple = fed  # type: ignore[method-assign]  # no event tells of a read
        processor.after_key_press += lambda _: self._taken()
        app.on_reset += lambda _: self.reset()

    def reset(self) -> None:
        self.read_at, self.seen = float("-inf"), None
        self.breaks = 0
        self.burst = None

    def came(self) -> None:
        """Keys were read (none of them taken in yet): the same burst as the keys read before them
        when seen waiting, or read, closer than `BURST_GAP` after those were read."""
        now = self.clock()
        if (now if self.seen is None else self.seen) - self.read_at > BURST_GAP:
            self.breaks = 0  # a pause: a burst of its own begins
            buf = self.app.current_buffer if self.app is not None else None
            self.burst = _Burst(buf.text, buf.cursor_position) if buf is not None else None
        self.read_at, self.seen = now, None
        self._look()  # a read is a kilobyte at most: more may be waiting already

    def _look(self) -> None:
        if self.seen is None and self.waiting():
            self.seen = self.clock()

    def _unread(self) -> bool:
        """Whether the terminal holds keys not read yet."""
        try:
            fd = self.app.input.fileno() if self.app is not None else None
            return fd is not None and bool(select.select([fd], [], [], 0)[0])
        except (OSError, ValueError, NotImplementedError):  # no terminal to ask: nothing seen waiting
            return False

    def _taken(self) -> None:
        self._look()  # keys that came while this one was taken in: seen now, not when read
        if self.pastes is not None:
            self._held()

    def _held(self) -> None:
        """After a key: at the end of a read of a burst taken as a paste, what the burst put into the
        input so far behind its placeholder, when more than a small paste (pastes.insert)."""
        app, pastes, burst = self.app, self.pastes, self.burst
        if app is None or pastes is None or burst is None or not self.breaks or app.key_processor.input_queue:
            return
        buf = app.current_buffer
        head, tail = burst.before[:burst.start], burst.before[burst.start:]
        text, end = buf.text, len(buf.text) - len(tail)
        if not (text.startswith(head) and text.endswith(tail) and buf.cursor_position == end >= burst.start):
            return  # a key of the burst did more than put text at the cursor: left as it is
        came = text[burst.start:end]
        if burst.name is not None:  # its earlier reads are held already: this read's keys join them
            if not came.startswith(burst.name) or burst.name not in pastes.held or came == burst.name:
                return
            data = pastes.held.pop(burst.name) + came[len(burst.name):]
        else:
            data = came
        held = len(pastes.held)
        name = pastes.insert(data, head + "\0" + tail)
        if len(pastes.held) == held:  # small: it stays in the input as it came
            return
        buf.set_document(Document(head + tail, len(head)), bypass_readonly=True)  # the keys' text out…
        buf.insert_text(name)  # …and its placeholder in, as a bracketed paste goes in (paste_guard.py)
        burst.name = name

    def is_line_break(self, waiting: Iterable[KeyPress]) -> bool:
        """The Enter being taken, with the keys `waiting` behind it: True when it is a paste's line
        break (it goes into the input), False when it sends."""
        if any(typed_text(k) for k in waiting) or self.breaks:  # `breaks` counts this burst's only
            self.breaks += 1
            return True
        return False

    def line_break(self, event: KeyPressEvent) -> bool:
        """The Enter of `event`, when it is a paste's line break, put into the input as one (the paste
        stays there as pasted): True. False when it is the user's, to send the input."""
        if not self.is_line_break(event.key_processor.input_queue):
            return False
        event.current_buffer.insert_text("\n")
        return True
