"""File names as a file system that ignores case compares them (`folded`), below the permission
checks (permissions.py) and the instruction and command files (integrations/instructions.py),
which both match names this way and so import it from here rather than from each other; the
character no name (nor command line) can carry (`lone_surrogate`); and a name as the file tools
write it back to the model, with its escapes, or as typed in another Unicode normalization, found
again on disk (`as_named`)."""

from __future__ import annotations

import os
import re
import unicodedata
from pathlib import Path

#: Characters macOS's HFS+ leaves out of a file name when it compares two (`.g\u200cit` is `.git`).
_IGNORED_IN_NAMES = re.compile("[\u200c-\u200f\u202a-\u202e\u206a-\u206f\ufeff]")


def folded(path: Path | str) -> str:
    """`path` as a file system that ignores case (macOS's and Windows' by default) tells names apart:
    `.GIT/hooks` is `.git/hooks` there, and `~/LIBRARY/…` the session store. What the fence keeps
    the model from (.git/, the project config, compact-agent's own data, deny rules) is matched in
    this form, so no spelling reaches it; on a file system that tells case apart this refuses a
    little more, never less."""
    return _IGNORED_IN_NAMES.sub("", unicodedata.normalize("NFC", str(path))).casefold()


def lone_surrogate(text: str) -> str | None:
    """The first character of `text` no file name or command line can carry (`U+D800`: a model's
    reply may hold one, escaped in its JSON), as `U+D800`, or None. A name's bytes that are not
    UTF-8 come as U+DC80-U+DCFF and go back as those bytes: they are no such character."""
    try:
        os.fsencode(text)
    except UnicodeEncodeError as e:
        return f"U+{ord(text[e.start]):04X}"
    return None


#: The escapes `path_line` (context/compaction/summary.py) writes a character of a name as: `\\n`,
#: `\\t`, `\\x1b`, `\\u200d` (Python's unicode_escape); and `tool_text` (tools/base.py) a byte of a
#: name that is not UTF-8 as: `\\xe9`. A backslash of the name itself is left as it is.
_ESCAPE = re.compile(r"\\(?:[tnr]|x[0-9a-f]{2}|u[0-9a-f]{4}|U[0-9a-f]{8})")
_BYTE = re.compile(r"\\x([89a-f][0-9a-f])")


def _byte(m: re.Match[str]) -> str:
    """A byte of a name `tool_text` wrote as `\\xNN` (0x80 and up), as the OS hands it back: the
    surrogate escape `os.fsdecode` reads it as (a name's bytes that are not UTF-8 on POSIX)."""
    char = chr(0xDC00 + int(m.group(1), 16))
    try:
        return char if os.fsencode(char) == bytes([int(m.group(1), 16)]) else m.group()
    except UnicodeEncodeError:  # a file system whose names are not bytes (Windows): no such name
        return m.group()


def unescaped(name: str, raw_bytes: bool = False) -> str:
    """`name` with each escape `path_line` writes undone: the line break, tab, other control or
    invisible character it stands for. Only what `path_line` would write so (`\\x41` stays, as it
    writes an `A` as itself), so this is its inverse on the names it escaped. With `raw_bytes`,
    each `\\x80`-`\\xff` is first read as `tool_text` writes it, a byte that is not UTF-8 (`\\x85`
    is both: a byte so, and U+0085, a control `path_line` escapes)."""
    from ...context.compaction.summary import path_line  # (pydantic-ai's messages: not for the CLI's start)

    def back(m: re.Match[str]) -> str:
        code = m.group()[1:]
        n = {"t": 9, "n": 10, "r": 13}.get(code) or int(code[1:], 16)
        char = chr(n) if n <= 0x10FFFF else ""
        return char if char and path_line(char) == m.group() else m.group()

    return _ESCAPE.sub(back, _BYTE.sub(_byte, name) if raw_bytes else name)


def _spelled_alike(folder: Path, name: str) -> str | None:
    """The one entry of `folder` that is `name` in another Unicode normalization (`résumé.md` typed
    as one character `é`, stored as `e` and a combining accent, as macOS writes names), or None for
    none or several."""
    want = unicodedata.normalize("NFC", name)
    try:
        with os.scandir(folder) as entries:
            alike = [e.name for e in entries
                     if not e.name.isascii() and unicodedata.normalize("NFC", e.name) == want]
    except OSError:
        return None
    return alike[0] if len(alike) == 1 else None


def _as_output_read(name: str) -> str | None:
    """`name` as the bytes a command's output showed as its characters: a byte that is not UTF-8
    is read there as its Windows-1252 character (tools/text_encoding.py `decode_output`), so `ls`
    shows `latin_caf\\xe9.txt` as `latin_café.txt`; None where a character has no such byte."""
    try:
        raw = name.encode("cp1252")
    except UnicodeEncodeError:
        return None
    return os.fsdecode(raw) if os.name == "posix" else None


def on_disk(folder: Path, part: str) -> str | None:
    """The entry of `folder` that `part`, a name the model or the user wrote, stands for where no
    entry has it as written: its escapes undone (`path_line`'s, then `tool_text`'s bytes), or the
    one entry spelled alike in another normalization (`_spelled_alike`), or its characters as the
    bytes a command's output showed so (`_as_output_read`); None for none."""
    readings = [part]
    if "\\" in part:
        readings += [r for r in (unescaped(part), unescaped(part, raw_bytes=True)) if r not in readings]
    for name in readings[1:]:
        if os.path.lexists(folder / name):
            return name
    for name in readings:
        if not name.isascii() and (alike := _spelled_alike(folder, name)) is not None:
            return alike
    if not part.isascii() and (read := _as_output_read(part)) not in (None, part) and os.path.lexists(folder / read):
        return read
    return None


def as_named(path: Path) -> Path:
    """Absolute `path` with each part that is not on disk taken as the entry it stands for
    (`on_disk`). grep, glob, read_file's listing of a folder and its "Did you mean:" write a name
    holding a tab, a line break or a zero-width joiner with its escape (`a\\tb.py`, on its one line),
    a byte that is not UTF-8 as `\\xe9`, and the model names the file back so; a name typed in one
    Unicode normalization finds the file stored in the other. A name that exists as written wins: a
    file whose name holds a backslash and an `n` of its own is that file, even where another one's
    line break reads the same. A plain ASCII path is given back with nothing looked at."""
    text = str(path)
    if text.isascii() and "\\" not in text:
        return path
    at = Path(path.anchor)
    parts = path.parts[1:]
    for i, part in enumerate(parts):
        if (part.isascii() and "\\" not in part) or part in (".", "..") or os.path.lexists(at / part):
            at = at / part
            continue
        if (real := on_disk(at, part)) is None:
            return at.joinpath(*parts[i:])  # not there: nor is anything below it
        at = at / real
    return at
