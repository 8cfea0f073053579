"""A paste's placeholder in the input is one unit: an edit that would break it takes it whole.

`[pasted 200 lines]` stands for text held until Enter (pastes.py); the line sent has each intact
placeholder replaced by its paste. Deleting one character inside it left `[pasted 20 lines]`, no
longer a placeholder: the words went to the model and the paste was lost without a word. Now every
change of the input is checked against the text before it: a deletion that touches a placeholder
(Backspace, Delete, Ctrl-W, Ctrl-K, a cut) takes the whole placeholder with it, and its paste; a
character typed inside one goes after it, the placeholder kept whole. Whatever the edit, each
placeholder of the input is whole or gone. A cut (Ctrl-W, Ctrl-K) that took a placeholder puts
the whole of what it took on the clipboard, for Ctrl-Y to bring back with its paste.

Words typed that look like a held placeholder stay typed words (paste_lookalikes.py).

Up-arrow history brings back lines with their pastes in them (prompt_input.RedactedHistory), never
placeholders: a change of history line is not an edit, and is taken as it is.
"""

from __future__ import annotations

from collections.abc import Iterable

from prompt_toolkit.buffer import Buffer
from prompt_toolkit.clipboard import Clipboard
from prompt_toolkit.document import Document

from .edit_span import edit, spans
from .paste_lookalikes import disown
from .pastes import Pastes


def mend(before: str, after: str, cursor: int, names: Iterable[str]) -> tuple[str, int] | None:
    """The input and its cursor when the edit from `before` to `after` (the cursor at `cursor`)
    touched a placeholder of `before`: a whole placeholder taken, text typed inside one put after
    it. None when it touched none."""
    found = spans(before, names)
    if not found:
        return None
    start, end, typed = edit(before, after, cursor)
    if end == start:  # only typed: inside a placeholder, not at its edges
        inside = [b for a, b in found if a < start < b]
        if not inside:
            return None
        return before[:inside[0]] + typed + before[inside[0]:], inside[0] + len(typed)
    touched = [(a, b) for a, b in found if start < b and end > a]
    if not touched:
        return None
    low, high = min(start, touched[0][0]), max(end, touched[-1][1])
    return before[:low] + typed + before[high:], low + len(typed)


class PlaceholderGuard:
    """Watches one input buffer: `changed` after every change of its text, `reset` when a new input
    starts (the text it starts with taken as it is)."""

    def __init__(self, pastes: Pastes) -> None:
        self.pastes = pastes
        self.before = ""
        self.line = 0  # the buffer's history line: another one is not an edit of this one
        self.mending = False
        #: the text a deletion took out, and all it took with the placeholders it touched: a cut
        #: (Ctrl-W, Ctrl-K) keeps the whole of it, for Ctrl-Y to put back (`cut`)
        self.taken: tuple[str, str] | None = None
        self.clipped = ""  # the clipboard's text before the key: a key that leaves it so cut nothing

    def reset(self, buffer: Buffer) -> None:
        self.before, self.line = buffer.text, buffer.working_index

    def changed(self, buffer: Buffer) -> None:
        if self.mending:
            return
        if buffer.working_index != self.line:
            self.reset(buffer)
            return
        fixed = mend(self.before, buffer.text, buffer.cursor_position, self.pastes.held)
        if fixed is not None and len(buffer.text) < len(self.before):
            start, end, _ = edit(self.before, buffer.text, buffer.cursor_position)
            low, high, _ = edit(self.before, *fixed)
            self.taken = (self.before[start:end], self.before[low:high])
        text, cursor = fixed if fixed is not None else (buffer.text, buffer.cursor_position)
        fixed = disown(self.pastes, self.before, text, cursor, self.pastes.typing) or fixed
        if fixed is not None and fixed != (buffer.text, buffer.cursor_position):
            self.mending = True
            try:
                buffer.set_document(Document(*fixed), bypass_readonly=True)
            finally:
                self.mending = False
        self.reset(buffer)

    def key(self, clipboard: Clipboard) -> None:
        """Before each key: what the clipboard holds."""
        self.clipped = clipboard.get_data().text

    def cut(self, clipboard: Clipboard) -> None:
        """After each key: a cut that took placeholders whole puts all it took on the clipboard
        (prompt_toolkit's Ctrl-W put `lines]` there, and Ctrl-Y brought back those words)."""
        taken, self.taken = self.taken, None
        text = clipboard.get_data().text
        if taken is None or not taken[0] or text == self.clipped:
            return
        words, whole = taken
        if text.startswith(words):  # Ctrl-W again adds what it cuts before the last cut
            clipboard.set_text(whole + text[len(words):])
        elif text.endswith(words):  # Alt-D again, after it
            clipboard.set_text(text[:-len(words)] + whole)
