"""File names as a file system that ignores case compares them (`folded`), below the permission
checks (permissions.py) and the instruction and command files (integrations/instructions.py),
which both match names this way and so import it from here rather than from each other; and the
character no name (nor command line) can carry (`lone_surrogate`)."""

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
