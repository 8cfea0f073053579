"""How an `@` mention is written, read back, and completed: `@src/main.py`; a path with a space or
any character a plain mention stops at goes in quotes, `@"odd dir/sp ace.txt"` (or `'…'`), or with
a backslash before each such character, `@odd\\ dir/sp\\ ace.txt`, as a shell takes it. A backslash
before a character a plain mention takes anyway is the path's own (`@src\\main.py`, as typed on
Windows; attachments.py attaches `src/main.py` when only that exists).

The message attaches what `mentions` finds (attachments.py); the REPL's Tab completes the mention
before the cursor (`partial`) and writes a path the way it is read back (`written`): escaped when
the mention was begun without a quote (`@odd` → `@odd\\ dir/`: what is typed stays the start of
what Tab writes, so prompt_toolkit inserts it and the next Tab completes inside the folder; a
quote put in front of it made a one-item menu the next Tab only cycled through), in the quote the
user opened otherwise, left open for a folder. Nothing here imports more than `re`: the
REPL's prompt is up before the rest of the program is loaded.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

#: What a plain mention is made of; any other character ends it. Letters (`\\w`) and the combining
#: marks a name stored decomposed holds after them (macOS's `résumé.md` is `e` and U+0301; `ガ` is
#: `カ` and U+3099), which `\\w` leaves out.
PLAIN = r"[\w./~\u0300-\u036f\u1ab0-\u1aff\u1dc0-\u1dff\u20d0-\u20ff\ufe20-\ufe2f\u3099\u309a-]"
_ALL_PLAIN = re.compile(rf"{PLAIN}+")
_MENTION = re.compile(rf"""(?<![\w/])@(?:"([^"\n]+)"?|'([^'\n]+)'?|((?:{PLAIN}|\\[^\n])+))""")
#: The mention the cursor is in: opened quotes (a folder's), a quote just closed, or plain and escaped.
_PARTIAL = re.compile(rf"""(?<![\w/])@(?:(["'])((?:(?!\1)[^\n])*)\1?|((?:{PLAIN}|\\[^\n])*)\\?)\Z""")
#: A backslash escapes a character a plain mention stops at (a space, a quote, a backslash), or a
#: last one a sentence would take (`@foo\\.`); before any other it is a character of the path.
_ESCAPED = re.compile(rf"\\((?!{PLAIN}).|[.,;:]\Z)")


@dataclass(frozen=True)
class Mention:
    name: str  # the path it names
    start: int  # where `@` is in the text
    end: int


def mentions(typed: str) -> list[Mention]:
    """Every `@` mention in `typed`, in order. A quote left open runs to the end of the line (what
    it names is said not found, rather than nothing said at all)."""
    out = []
    for m in _MENTION.finditer(typed):
        group = 1 if m.group(1) is not None else 2 if m.group(2) is not None else 3
        raw = m.group(group)
        if group < 3:
            closed = m.end() > m.end(group)
            out.append(Mention(raw if closed else _sentence_cut(raw.rstrip()), m.start(), m.end()))
        else:
            name = _sentence_cut(raw)
            if (len(name) - len(name.rstrip("\\"))) % 2:  # the cut took an escaped character: the path's
                name = raw[:len(name) + 1]
            out.append(Mention(unescape(name), m.start(), m.end()))
    return out


def unescape(raw: str) -> str:
    """The path a plain mention's characters name: `odd\\ dir` is `odd dir`, `a\\\\b` is `a\\b`, and
    `src\\main.py` (a Windows path) keeps its backslash."""
    return _ESCAPED.sub(r"\1", raw)


def _sentence_cut(raw: str) -> str:
    """The path an `@` mention names, without the punctuation of the sentence it ends ("see
    @foo.py." names foo.py). A last part that is dots alone is the path's, not the sentence's:
    `@.`, `@..` and `@dir/.` name folders (stripping them made `@.` the empty name, said "@ is a
    folder"); a dot after them is the sentence's again (`@..` ending a sentence as `@...`)."""
    name = raw.rstrip(".,;:")
    if name == "" or name.endswith("/"):
        tail = raw[len(name):]
        name += "." * min(2, len(tail) - len(tail.lstrip(".")))
    return name


@dataclass(frozen=True)
class Partial:
    """The mention the cursor ends: `typed` characters of it (from `@`), the path so far, and how it
    is being written (`quote`: the quote it opened; `escaped`: backslashes before spaces)."""

    typed: int
    path: str
    quote: str | None = None
    escaped: bool = False


def partial(before_cursor: str) -> Partial | None:
    """The mention being typed at the end of `before_cursor`, or None."""
    m = _PARTIAL.search(before_cursor)
    if m is None:
        return None
    if m.group(1) is not None:
        return Partial(len(m.group(0)), m.group(2), quote=m.group(1))
    raw = m.group(3)
    return Partial(len(m.group(0)), unescape(raw), escaped=_ESCAPED.search(m.group(0)) is not None)


def written(path: str, *, folder: bool = False, quote: str | None = None, escaped: bool = False) -> str:
    """`@path` as it reads back as `path`: plain when it can be, else in the quote the user opened
    (`quote`; a folder's stays open, so Tab completes on inside it, a file's is closed), else with
    a backslash before each character a plain mention stops at."""
    if not (quote or escaped) and _ALL_PLAIN.fullmatch(path) and _sentence_cut(path) == path:
        return f"@{path}"
    if quote and not escaped:
        for q in (quote, "'", '"'):
            if q not in path:
                return f"@{q}{path}{'' if folder else q}"
    out = re.sub(rf"(?s)((?!{PLAIN}).)", r"\\\1", path)
    if _sentence_cut(path) != path:  # a last character a sentence would take: `@foo\.`
        out = out[:-1] + "\\" + out[-1]
    return "@" + out


def comparable(name: str) -> str:
    """`name` as Tab compares it with what was typed: composed (NFC), so `@rés` typed finds the
    `résumé.md` macOS stored decomposed (an ASCII name is as it is, nothing more imported)."""
    if name.isascii():
        return name
    import unicodedata

    return unicodedata.normalize("NFC", name)


def spelled(path: str) -> str:
    """`@path` as a line about it shows it: whole, in quotes when it has a space (`@"odd dir/x"`),
    else as it was typed (`@notes.txt`, `@.`)."""
    return written(path, quote='"') if any(c.isspace() or c in "\"'" for c in path) else f"@{path}"
