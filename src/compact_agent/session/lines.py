"""The lines of a session file, read as a load reads them, whatever the file holds.

A file is read in chunks, so memory stays at about `MAX_LINE_BYTES` however large it or one of its
lines is (a line over the cap is dropped while it is read); each line is parsed to a JSON object
(torn, binary and non-object lines counted, lone surrogate escapes replaced, an integer too long for
Python to read kept as its digits: `parsed`), and lines moved around are put back in the order their
parent ids say. `readable_entries` gives the entries a
load would read without building the messages (a listing of sessions counts them).
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Any

from .. import secrets
from ..regular_file import open_regular
from .journal import utf8_safe

#: A lone surrogate's escape in a line's bytes (`\ud800`), which UTF-8 cannot hold.
_SURROGATE_ESCAPE = re.compile(rb"\\u[dD][89a-fA-F][0-9a-fA-F]{2}")

MAX_LINE_BYTES = 64 * 1024 * 1024
_CHUNK = 1 << 20


def _file_lines(path: Path, cap: int | None = None, *, follow_links: bool = True) -> Iterator[bytes | None]:
    """The lines of `path` (without newlines), read in chunks; a line over `cap` bytes is
    dropped while it is read and yields None. Memory stays at about `cap`, whatever the file.

    The file is opened once, without blocking, and read only when that descriptor is a regular
    file (regular_file.open_regular: NotRegular otherwise, and for a link when `follow_links` is
    False), so a FIFO or a device swapped in after a caller's check neither hangs nor floods the read."""
    cap = MAX_LINE_BYTES if cap is None else cap
    buf = bytearray()
    skipping = False
    with open_regular(path, follow_links=follow_links) as f:
        while chunk := f.read(_CHUNK):
            start = 0
            while (nl := chunk.find(b"\n", start)) >= 0:
                if skipping:
                    skipping = False
                    yield None
                else:
                    buf += chunk[start:nl]
                    yield bytes(buf)
                buf.clear()
                start = nl + 1
            if not skipping:
                buf += chunk[start:]
                if len(buf) > cap:
                    buf.clear()
                    skipping = True
    if skipping:
        yield None
    elif buf:
        yield bytes(buf)


class Digits(str):
    """An integer of a line too long for Python to read as a number, kept as its digits (`parsed`)."""


def parsed(line: bytes | str) -> tuple[Any, bool]:
    """The JSON value of `line`, and whether it holds an integer kept as its digits (`Digits`).

    Python reads no integer of more than `sys.get_int_max_str_digits()` digits (4,300 by default):
    `json.loads` raised ValueError for the whole line, and a load skipped the entry, the user's text
    and tool calls beside the number lost with it (a model's argument, a tool's output, an edit).
    Such a number is kept as its digits, the rest of the entry as it was; any other fault raises
    as before (JSONDecodeError, UnicodeDecodeError, RecursionError). A line without one is parsed
    at full speed: the digits are looked at only when the plain parse failed so."""
    try:
        return json.loads(line), False
    except (json.JSONDecodeError, UnicodeDecodeError):
        raise
    except ValueError:  # the one other ValueError json.loads raises: an integer over the limit
        return json.loads(line, parse_int=_number), True


def _number(text: str) -> int | str:
    """An integer's digits as the number, or as `Digits` where Python reads no number that long."""
    try:
        return int(text)
    except ValueError:
        return Digits(text)


def digits_in(value: Any) -> int:
    """How many integers kept as their digits (`Digits`) `value`, a parsed line, holds."""
    if isinstance(value, Digits):
        return 1
    if isinstance(value, dict):
        return sum(digits_in(v) for v in value.values())
    if isinstance(value, list):
        return sum(digits_in(v) for v in value)
    return 0


def without_digits(value: Any) -> Any:
    """`value` with every integer kept as its digits left out (a key of an object, an item of a
    list): the entry a load reads where such a number stands where only a number fits (a token
    count), as text it makes the whole message unreadable."""
    if isinstance(value, dict):
        return {k: without_digits(v) for k, v in value.items() if not isinstance(v, Digits)}
    if isinstance(value, list):
        return [without_digits(v) for v in value if not isinstance(v, Digits)]
    return value


def _parse_lines(lines: Iterable[bytes | None]) -> tuple[list[dict[str, Any]], int, int, set[int]]:
    """JSON objects of the file's lines, how many lines were not one (None: over the size cap),
    how many held a lone surrogate escape (replaced by U+FFFD: see `utf8_safe`), and the entries
    (by `id`: they live as long as the list) holding an integer kept as its digits (`parsed`)."""
    entries: list[dict[str, Any]] = []
    long: set[int] = set()
    bad = fixed = 0
    for line in lines:
        if line is None:
            bad += 1
            continue
        if not line.strip():
            continue
        # A key in use now that was none when the line was written (the session ran without it, and
        # a prompt or a file held it) is redacted as a write would: it reaches no request, no screen.
        line = secrets.redact_bytes(line)
        try:
            entry, digits = parsed(line)
            if _SURROGATE_ESCAPE.search(line):  # rare: only then pay for the check
                text = json.dumps(entry, ensure_ascii=False)
                if (safe := utf8_safe(text)) is not text:
                    entry = json.loads(safe)  # the digits of a number too long stay, as text
                    fixed += 1
        except (ValueError, UnicodeDecodeError, RecursionError):
            bad += 1
            continue
        if isinstance(entry, dict):
            entries.append(entry)
            if digits:
                long.add(id(entry))
        else:
            bad += 1
    return entries, bad, fixed, long


def _in_parent_order(entries: list[dict[str, Any]]) -> tuple[list[dict[str, Any]], int]:
    """File order, except that an entry whose parent comes later in the file follows its parent.

    Appends always write a parent before its child, so this only changes a file whose lines were
    moved around; a stable topological order keeps everything else where it was. Returns the
    entries and how many were moved.
    """
    ids = {e["id"] for e in entries if isinstance(e.get("id"), str)}
    placed: set[str] = set()
    waiting: dict[str, list[dict[str, Any]]] = {}
    out: list[dict[str, Any]] = []
    moved = 0
    for entry in entries:
        parent = entry.get("parent")
        if isinstance(parent, str) and parent in ids and parent not in placed and parent != entry.get("id"):
            waiting.setdefault(parent, []).append(entry)
            moved += 1
            continue
        stack = [entry]
        while stack:
            e = stack.pop()
            out.append(e)
            eid = e.get("id")
            if isinstance(eid, str):
                placed.add(eid)
                stack.extend(reversed(waiting.pop(eid, [])))
    for rest in waiting.values():  # a cycle of parents: keep the file's order
        out.extend(rest)
    return out, moved


#: The kinds of entry a load reads; a line of any other is skipped.
KINDS = ("message", "boundary", "meta", "prompt")


def readable_entries(path: Path) -> Iterator[dict[str, Any]]:
    """The entries of `path` a load would read, each once, in file order, without building the
    messages (a listing of sessions counts them): JSON objects of a known kind; torn, binary,
    duplicated and unknown lines are skipped as `load_session_file` skips them."""
    seen: set[str] = set()
    for line in _file_lines(path):
        if line is None or not line.strip():
            continue
        try:
            entry, _ = parsed(line)
        except (ValueError, UnicodeDecodeError, RecursionError):
            continue
        if not isinstance(entry, dict) or entry.get("kind") not in KINDS:
            continue
        eid = entry.get("id")
        if isinstance(eid, str):
            if eid in seen:
                continue
            seen.add(eid)
        yield entry
