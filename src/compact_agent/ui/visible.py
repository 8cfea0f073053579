"""Text from the model, tools, files and sessions reaches the terminal as text, never as commands.

A terminal obeys the control characters in what it prints: `\\r` and an escape sequence can
rewrite a line already shown (the command an approval question names), change the window title or
clear the screen, and a bidirectional override makes text read in another order than it runs. So
every character that steers the terminal is shown as its escape (`\\x1b`, `\\r`, `\\u202e`), the way
a file name with a byte that is not UTF-8 is shown (`\\xff`). Newlines and tabs are kept.

`visible` does it for one string; `visible_segments` for everything a rich console prints
(`render.SafeConsole`), our own styling and the cursor moves of a spinner excepted (rich keeps
those apart from the text). rich drops some controls itself (`\\r`, the bell, backspace, vertical
tabs and form feeds) when it makes a string into text, so `SafeConsole` and `render.markdown` show a
string's controls before rich sees it. `one_line` puts text on one line (a list's row) without
turning a `\\r` into a space: it stays, for `visible` to show.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from rich.segment import Segment

_KEPT = {"\n", "\t"}
_CONTROLS = [*range(0x00, 0x20), 0x7F, *range(0x80, 0xA0)]  # C0, DEL and C1 (0x9b is a CSI by itself)
_BIDI = [0x200E, 0x200F, *range(0x202A, 0x202F), *range(0x2066, 0x206A)]  # marks, embeddings, overrides, isolates
_TABLE = {c: f"\\x{c:02x}" for c in _CONTROLS if chr(c) not in _KEPT} | {c: f"\\u{c:04x}" for c in _BIDI} \
    | {ord("\r"): "\\r"}


_STEERING = re.compile("[" + "".join(re.escape(chr(c)) for c in _TABLE) + "]")  # what `visible` shows as its escape

#: Whitespace that is not a control `visible` shows: spaces, tabs, newlines (and Unicode's spaces).
_SPACES = re.compile(r"[^\S\r\x0b\x0c\x1c-\x1f\x85]+")


def visible(text: str) -> str:
    """`text` with every character that would steer the terminal shown as its escape."""
    return text.translate(_TABLE)


def json_visible(text: str) -> str:
    """JSON text (print mode's `json` and `stream-json` lines, `config --json`) with every character
    `visible` would show as its escape written as a JSON escape (`\\u009b`, `\\u202e`): json.dumps
    escapes C0 controls, but leaves DEL, C1 and the bidirectional marks as they are, and a terminal
    obeys them. Outside its strings JSON holds none of them, so the text read back is the same."""
    return _STEERING.sub(lambda m: f"\\u{ord(m[0]):04x}", text)


def one_line(text: str) -> str:
    """`text` with each run of spaces, tabs and newlines made one space, trimmed; a control that
    Python counts as whitespace (`\\r`, a form feed) is kept, so `visible` shows it."""
    return " ".join(part for part in _SPACES.split(text) if part)


def visible_segments(buffer: Iterable[Segment]) -> Iterable[Segment]:
    """rich's segments with their text `visible`; control segments (a spinner's cursor moves) and
    styles (our colours) are rich's own and pass as they are."""
    for seg in buffer:
        if seg.control is None and seg.text:
            shown = visible(seg.text)
            yield seg if shown == seg.text else seg._replace(text=shown)
        else:
            yield seg
