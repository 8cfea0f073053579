"""The table of `compact-agent config` and `/config`: a setting, its value and where it came from.

The value column was cut at 40 characters wide, so a longer value (deepseek-chat's prices, 54) pushed
its row's source out of the column. The column is now as wide as the longest value where the width
allows; where it does not, a long value (or source) wraps within its column, and the row's source
stays in line on its first line. The value column keeps the longest word of any value (a URL, a
path) whole while the source column, whose words are short, can still be MIN_SOURCE_WIDTH wide.

Widths are screen cells, as the terminal counts them (ui/cells.py): a model named in Chinese or
Japanese, each character two cells wide, was padded by its count of characters and pushed its
row's source that many columns out of line.
"""

from __future__ import annotations

import shutil
import sys
from collections.abc import Sequence

from rich.cells import cell_len

from .ui.cells import wrap

#: The narrowest the value and source columns get: narrower, a terminal that small wraps the rows
#: whatever we do.
MIN_VALUE_WIDTH, MIN_SOURCE_WIDTH = 24, 16

#: What a setting left unset means, said in the table where it said `null` (a user read "none", or
#: JSON): --json keeps null.
UNSET = {"base_url": "not set (the model's provider)", "summary_model": "not set (the main model)",
         "memory_model": "not set (the main model)",
         "images": "not set (yes if the model is known to take images)"}


def unset(key: str) -> str:
    """The table's words for setting `key` unset (None)."""
    return UNSET.get(key, "not set")


def output_width() -> int | None:
    """The terminal's width (`COLUMNS` when set, as rich takes it); None for a file or a pipe, whose
    lines are whole, as `/config` writes them in `-p` (a script's `grep prices` gets the row entire;
    --json is the machine's form)."""
    return (shutil.get_terminal_size((0, 0)).columns or None) if sys.stdout.isatty() else None


def table(rows: Sequence[tuple[str, str, str]], width: int | None = None) -> list[str]:
    """(name, value, source) rows as aligned lines, fitted to `width` columns (None: no limit)."""
    if not rows:
        return []
    name_w = max(cell_len(name) for name, _, _ in rows)
    value_w = max(cell_len(value) for _, value, _ in rows)
    src_w = max(cell_len(src) for _, _, src in rows)
    if width is not None and name_w + 2 + MIN_VALUE_WIDTH + 2 + MIN_SOURCE_WIDTH > width:
        # Too narrow for the name beside the narrowest value and source columns (at 40 columns a
        # row of `/config` was 58 wide, wrapped again by the terminal): each name on a line of its
        # own, its value and source under it, two spaces in.
        return [line.rstrip() for name, value, src in rows for line in (name, *_under(value, src, width))]
    if width is not None and name_w + 2 + value_w + 2 + src_w > width:
        room = width - name_w - 4
        # A value's longest word (an address, a path) is kept whole where the source column can
        # give way: split, `http://127.0.0.1:8000/v` on one line and `1` on the next reads as two.
        word = max(cell_len(w) for _, value, _ in rows for w in value.split() or [""])
        value_w = min(value_w, max(MIN_VALUE_WIDTH, min(word, room - MIN_SOURCE_WIDTH), room - src_w))
        src_w = min(src_w, max(MIN_SOURCE_WIDTH, room - value_w))
    lines: list[str] = []
    for name, value, src in rows:
        values, sources = _wrap(value, value_w), _wrap(src, src_w)
        for i in range(max(len(values), len(sources))):
            shown, whence = values[i] if i < len(values) else "", sources[i] if i < len(sources) else ""
            lines.append(f"{_pad(name if i == 0 else '', name_w)}  {_pad(shown, value_w)}  {whence}")
    return [line.rstrip() for line in lines]


def _under(value: str, src: str, width: int) -> list[str]:
    """A row's value and source under its name in `width` columns, two spaces in: on one line where
    they fit, else side by side, each wrapped in its part of the line: the value as wide as it is
    where it is short (a number beside a long source), else at least half, its longest word whole
    where it leaves the source ten columns."""
    room = max(2, width - 4)
    if cell_len(value) + cell_len(src) <= room:
        return [f"  {value}  {src}"]
    word = max((cell_len(w) for w in value.split()), default=1)
    value_w = max(1, min(cell_len(value), room - 1, max(room - cell_len(src), room // 2, min(word, room - 10))))
    values, sources = _wrap(value, value_w), _wrap(src, room - value_w)
    return [f"  {_pad(values[i] if i < len(values) else '', value_w)}  {sources[i] if i < len(sources) else ''}"
            for i in range(max(len(values), len(sources)))]


def _pad(text: str, width: int) -> str:
    """`text` and the spaces that make it `width` cells wide."""
    return text + " " * (width - cell_len(text))


def _wrap(text: str, width: int) -> list[str]:
    """`text` in lines of `width` cells, broken between words, and a word longer than that (a path,
    an address) where the width falls: whole, it pushed the source out of line."""
    return wrap(text, width) or [text]
