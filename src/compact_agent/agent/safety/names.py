"""File names as a file system that ignores case compares them (`folded`), below the permission
checks (permissions.py) and the instruction and command files (integrations/instructions.py),
which both match names this way and so import it from here rather than from each other; the
character no name (nor command line) can carry (`lone_surrogate`); and a name as the file tools
write it back to the model, with its escapes, found again on disk (`as_named`)."""

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
#: `\\t`, `\\x1b`, `\\u200d` (Python's unicode_escape). A backslash of the name itself is left as it is.
_ESCAPE = re.compile(r"\\(?:[tnr]|x[0-9a-f]{2}|u[0-9a-f]{4}|U[0-9a-f]{8})")


def unescaped(name: str) -> str:
    """`name` with each escape `path_line` writes undone: the line break, tab, other control or
    invisible character it stands for. Only what `path_line` would write so (`\\x41` stays, as it
    writes an `A` as itself), so this is its inverse on the names it escaped."""
    from ...context.compaction.summary import path_line  # (pydantic-ai's messages: not for the CLI's start)

    def back(m: re.Match[str]) -> str:
        code = m.group()[1:]
        n = {"t": 9, "n": 10, "r": 13}.get(code) or int(code[1:], 16)
        char = chr(n) if n <= 0x10FFFF else ""
        return char if char and path_line(char) == m.group() else m.group()

    return _ESCAPE.sub(back, name)


def as_named(path: Path) -> Path:
    """Absolute `path` with each part that is not on disk but whose `unescaped` form is taken as that
    form. grep, glob, read_file's listing of a folder and its "Did you mean:" write a name holding a
    tab, a line break or a zero-width joiner with its escape (`a\\tb.py`, on its one line), and the
    model names the file back so. A name that exists as written wins: a file whose name holds a
    backslash and an `n` of its own is that file, even where another one's line break reads the same."""
    if "\\" not in str(path):
        return path
    at = Path(path.anchor)
    for part in path.parts[1:]:
        if ("\\" in part and not os.path.lexists(at / part)
                and (real := unescaped(part)) != part and os.path.lexists(at / real)):
            part = real
        at = at / part
    return at
