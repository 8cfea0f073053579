"""A paste that reaches the prompt as keys stays in the input, one message, until the user sends it.

Most terminals mark a paste (bracketed paste) and the prompt takes it whole (pastes.py). One without
it, or with it off, sends the paste as keys, each line break an Enter: a 20-line log pasted at the
prompt was sent at its first line break, and each later line became a message of its own. Keys of a
paste come all at once: the line break of a paste has more keys right behind it, already read from
the terminal and waiting in prompt_toolkit's key queue when its Enter is taken, or coming in the
next read of the same burst, a few milliseconds later (reads of the terminal are a kilobyte at a
time). A person's Enter has nothing behind it yet. So an Enter is a line break of the input, not a
send, when keys are waiting behind it, or when it comes in a burst of keys (the key before it less
than `BURST_GAP` earlier, by the clock given) that already held such a line break: the paste's last
line break, or one at the edge of two reads. Anything else (a person's Enter, the Enter a quick
typist's last key came with) sends at once. A paste's text is taken as pasted: a line ending in
`\\` keeps it (a line break typed after `\\` is the way to start a new line, prompt_input.py).

Not covered: a paste whose first line break is the last key of a read, its next lines in the next
read (the first line of 1,023 characters or more, or a link that cuts the paste there); its first
line is sent, and the rest waits in the next prompt as one paste (typed_ahead.py).
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable
from typing import Any

from prompt_toolkit.application import Application
from prompt_toolkit.key_binding import KeyPress, KeyPressEvent
from prompt_toolkit.keys import Keys

from .typed_ahead import BURST_GAP


def typed_text(key: KeyPress) -> bool:
    """A key that is text of the input (a character, a line break, a paste), not an answer of the
    terminal (its cursor position) or a key that does something."""
    return key.key == Keys.BracketedPaste or key.data in ("\r", "\n", "\t") or (
        len(key.data) == 1 and key.data.isprintable())


class PasteKeys:
    """Tells, of each Enter, whether it is a paste's line break: at the prompt (prompt_input.py)
    and in the answer to what to do instead of a declined call (approval.instruction). `watch` the
    input's application, which tells it when each key comes and when a new input starts; its Enter
    key asks `line_break` first."""

    def __init__(self, clock: Callable[[], float] = time.monotonic) -> None:
        self.clock = clock
        self.now = self.before = float("-inf")  # when the key being taken came, and the one before it
        self.breaks = 0  # line breaks of the current burst of keys taken as a paste's

    def watch(self, app: Application[Any]) -> None:
        app.key_processor.before_key_press += self._key
        app.on_reset += lambda _: self.reset()

    def reset(self) -> None:
        self.now = self.before = float("-inf")
        self.breaks = 0

    def _key(self, _keys: object) -> None:
        self.before, self.now = self.now, self.clock()
        if self.now - self.before > BURST_GAP:
            self.breaks = 0  # a pause: a burst of its own begins

    def is_line_break(self, waiting: Iterable[KeyPress]) -> bool:
        """The Enter being taken, with the keys `waiting` behind it: True when it is a paste's line
        break (it goes into the input), False when it sends."""
        burst = self.now - self.before <= BURST_GAP
        if any(typed_text(k) for k in waiting) or (burst and self.breaks):
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
