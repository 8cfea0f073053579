"""Where a long result's preview sends the model for the lines it leaves out, and how many at a time.

A file reader numbers the lines it shows (`    30\tline`), so a result made of such lines says which
lines of the file it holds (`Numbered`). When the call that made it read a file the agent can read
again by lines (its `read_file` takes `path`, `offset` and `limit`, and no call beside it or after
it wrote that file: `Reads`), the preview sends the model back to that file, from the first line it
leaves out, rather than to the saved copy, whose line numbers are not the file's. Any other result
(a command's output, a search, a file changed since) is read back from its saved copy, which holds
a numbered result's lines without their numbers: a reader numbering them again showed two columns.

Either way the note names the first line left out and a `limit` that fits: the lines left out are
in the result, so what a read of them gives (its numbers and a line of its own in front) is counted
against the room one result has (budget.py's `limits`), with a tenth to spare, and a read that
follows the advice is shown whole, not cut to a preview again.
"""

from __future__ import annotations

import json
import posixpath
import re
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pydantic_ai.messages import ModelMessage, ModelResponse, ToolCallPart

READER = "read_file"
"""The tool a preview may send the model to, when the agent's request offers it with `READ_ARGS`."""
READ_ARGS = frozenset({"path", "offset", "limit"})

_NUMBER = re.compile(r"( *)(\d+)\t")
#: What a reader adds to each line it shows when its own numbers are not known: six places, a tab
#: and the line break (the width most readers and `cat -n` number lines to).
GUTTER = 8
#: What a read's result may hold besides its lines: the reader's line in front (`[path: lines a-b of
#: n; read more with offset=c]`), beyond the path it names.
READ_HEADER = 80
SPARE = 10  # one part in SPARE of the room is left over: the room may be a little smaller by the next read


@dataclass(frozen=True)
class Numbered:
    """A text made of numbered lines: `notes` (the reader's lines in front, each with its line
    break), then `lines`, numbered from `first` right-aligned to `width`; `end` is its final line
    break, if it had one."""

    notes: str
    first: int
    width: int
    lines: tuple[str, ...]
    end: str = ""

    def rows(self) -> list[str]:
        return [f"{str(n).rjust(self.width)}\t{line}" for n, line in enumerate(self.lines, self.first)]

    def text(self) -> str:
        return self.notes + "\n".join(self.rows()) + self.end

    def copy(self) -> str:
        """The lines without their numbers: what the saved copy holds."""
        return "".join(line + "\n" for line in self.lines)

    def state(self) -> dict[str, Any]:
        return {"first": self.first, "width": self.width, "notes": self.notes, "end": self.end}

    @classmethod
    def from_copy(cls, state: object, copy: str) -> Numbered | None:
        """The numbered text back from its saved copy and `state` (None when either is not one)."""
        if not isinstance(state, dict) or not copy.endswith("\n"):
            return None
        first, width, notes, end = (state.get(k) for k in ("first", "width", "notes", "end"))
        if not (isinstance(first, int) and isinstance(width, int) and isinstance(notes, str) and end in ("", "\n")):
            return None
        return cls(notes, first, width, tuple(copy[:-1].split("\n")), str(end))


def numbered(text: str) -> Numbered | None:
    """`text` as numbered lines, when every line after the bracketed notes in front is one, numbered
    on from the first without a gap, each number right-aligned to one width; else None."""
    rows = text.split("\n")
    end = ""
    if len(rows) > 1 and rows[-1] == "":
        rows.pop()
        end = "\n"
    notes = 0
    while notes < len(rows) and rows[notes].startswith("[") and rows[notes].endswith("]"):
        notes += 1
    body = rows[notes:]
    found = _NUMBER.match(body[0]) if body else None
    if found is None:
        return None
    first, width = int(found.group(2)), len(found.group(0)) - 1
    lines = []
    for n, row in enumerate(body, first):
        number = f"{str(n).rjust(width)}\t"
        if not row.startswith(number):
            return None
        lines.append(row[len(number):])
    return Numbered("".join(r + "\n" for r in rows[:notes]), first, width, tuple(lines), end)


def left_out(rows: Sequence[str], at: int, text_len: int, head: int, tail: int) -> tuple[int, int]:
    """The rows (indexes, first and last) not shown whole by a preview showing the first `head` and
    the last `tail` characters of a text `text_len` long whose `rows` (lines without their breaks)
    start at character `at`. (i, i - 1) when none is left out."""
    first = last = None
    pos = at
    for i, row in enumerate(rows):
        if not (pos + len(row) <= head or pos >= text_len - tail):
            first = i if first is None else first
            last = i
        pos += len(row) + 1
    return (first, last) if first is not None and last is not None else (len(rows), len(rows) - 1)


def fitting(lines: Sequence[str], gutter: int, room: int, header: int) -> int:
    """How many of `lines`, from the first, a read shows within `room` characters, each line with
    `gutter` more and `header` in front, a tenth of the room to spare."""
    left = room - room // SPARE - header
    n = 0
    for line in lines:
        left -= len(line) + gutter
        if left < 0:
            break
        n += 1
    return n


def _call(path: str, offset: int, limit: int) -> str:
    return f"{READER}(path={json.dumps(path, ensure_ascii=False)}, offset={offset}, limit={limit})"


def _on(offset: int, n: int, last: int) -> str:
    """What follows a call that does not read all `offset`..`last`: where to go on, and why."""
    return f", then on from offset={offset + n} ({n:,} lines fit in one result)" if offset + n <= last else ""


def from_source(text: str, head: int, tail: int, source: str, room: int) -> str | None:
    """The note's advice for a read's result, `source` the path it read: the lines the preview
    leaves out, read again from that file. None when the text is not numbered lines or not even
    one of those lines fits a result."""
    found = numbered(text)
    if found is None:
        return None
    a, b = left_out(found.rows(), len(found.notes), len(text), head, tail)
    if a > b:
        return None
    n = fitting(found.lines[a:b + 1], found.width + 2, room, READ_HEADER + len(source) + len(found.notes))
    if n == 0:
        return None
    first, last = found.first + a, found.first + b
    return f"Read lines {first:,}-{last:,} again from the file: {_call(source, first, n)}{_on(first, n, last)}"


def copy_view(text: str) -> tuple[str, Numbered | None]:
    """What the saved copy of `text` holds (its lines without their numbers, when it is numbered
    lines: a reader numbers them again) and the numbered lines it was cut from."""
    found = numbered(text)
    return (text, None) if found is None else (found.copy(), found)


def copy_head(text: str, head: int) -> str:
    """The part of the saved copy the first `head` characters of `text` show."""
    found = numbered(text)
    if found is None:
        return text[:head]
    a, _ = left_out(found.rows(), len(found.notes), len(text), head, 0)
    return "".join(line + "\n" for line in found.lines[:a])


def from_copy(path: Path, text: str, head: int, tail: int, room: int) -> str | None:
    """The note's advice for a result read back from its saved copy at `path`: the first line of
    the copy the preview leaves out and as many as fit. None when not even one line fits."""
    found = numbered(text)
    copy = found.copy() if found is not None else text
    rows = copy.split("\n")
    if rows and rows[-1] == "":
        rows.pop()
    if found is not None:
        a, b = left_out(found.rows(), len(found.notes), len(text), head, tail)
    else:
        a, b = left_out(rows, 0, len(text), head, tail)
    if a > b:
        return None
    n = fitting(rows[a:b + 1], GUTTER, room, READ_HEADER + len(str(path)))
    if n == 0:
        return None
    where = ""
    if found is not None:
        where = (" (the file holds the lines without their numbers" +
                 (f"; its line 1 is line {found.first:,} here" if found.first != 1 else "") + ")")
    return f"Read lines {a + 1:,}-{b + 1:,} with {_call(str(path), a + 1, n)}{_on(a + 1, n, b + 1)}{where}"


def _same(path: str) -> str:
    return posixpath.normpath(path.strip()).removeprefix("./")


def _touched(path: str, changed: set[str]) -> bool:
    """Whether a call changed `path` (both `_same`'d), however it was spelled: the library knows no
    working directory, so `/home/me/app/src/core.py` and `src/core.py` are taken for one file where
    one ends with the other at a `/` (a same-named file elsewhere is taken too: its read then goes
    to the spilled copy, which is never wrong)."""
    return any(c == path or c.endswith("/" + path) or path.endswith("/" + c) for c in changed)


class Reads:
    """The calls in `messages` that read a file the agent may read again by lines: call id -> the
    path it read, for a call of `READER` whose file no call beside it or after it changed
    (`changed`: the paths a response's calls write or edit, budget.py's from the ledger). Worked
    out when first asked (most requests have no result to preview)."""

    def __init__(self, messages: Sequence[ModelMessage], changed: Callable[[ModelResponse], Iterable[str]]) -> None:
        self._messages, self._changed = messages, changed
        self._found: dict[str, tuple[str, int | None]] | None = None

    def get(self, call_id: str) -> tuple[str, int | None] | None:
        """(the path, the first line it asked for: None when its `offset` is not a whole number)."""
        if self._found is None:
            self._found = self._find()
        return self._found.get(call_id)

    def _find(self) -> dict[str, tuple[str, int | None]]:
        found: dict[str, tuple[str, int | None]] = {}
        changed: set[str] = set()
        for m in reversed(self._messages):
            if not isinstance(m, ModelResponse):
                continue
            changed |= {_same(path) for path in self._changed(m)}
            for p in m.parts:
                if isinstance(p, ToolCallPart) and p.tool_name == READER:
                    try:
                        args = p.args_as_dict()
                    except ValueError:  # arguments that are no JSON object: no path to read again
                        continue
                    path = args.get("path")
                    if isinstance(path, str) and path.strip() and not _touched(_same(path), changed):
                        found[p.tool_call_id] = (path, _start(args.get("offset")))
        return found


def _start(offset: object) -> int | None:
    if offset is None:
        return 1
    if isinstance(offset, bool) or not isinstance(offset, int):
        return None
    return max(1, offset)


def source_of(reads: Reads | None, call_id: str, text: str, tools: Callable[[str], frozenset[str] | None]) -> str | None:
    """The path a preview of `text` (the result of `call_id`) may send the model back to: the agent
    has `READER` with its `READ_ARGS`, the call read that path, and the result is its numbered
    lines from the line the call asked for. None otherwise."""
    offered = tools(READER)
    read = reads.get(call_id) if reads is not None and offered is not None and READ_ARGS <= offered else None
    if read is None or read[1] is None:
        return None
    found = numbered(text)
    return read[0] if found is not None and found.first == read[1] else None
