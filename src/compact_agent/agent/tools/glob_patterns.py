"""How many patterns a glob may stand for and how long a name may take to match one, and what
grep and glob say when a glob goes past either (search.py translates and matches the globs)."""

from __future__ import annotations

import re

from ...words import quoted
from .base import name_line

MAX_GLOB_PATTERNS = 256
"""The most patterns a glob's braces may expand to: each brace multiplies them (`{a,b}` twenty times
is a million), and they were all made before the walk's time bound could say a word."""
MATCH_TIME_S = 1.0
"""The most time one name may take to match a glob: nested `**` backtracks (`**/**/…/x` against a
deep path tried every way to split it), and a match runs between the walk's checks of its bound."""


class GlobTooLarge(ValueError):
    """A glob whose braces expand to more than MAX_GLOB_PATTERNS patterns."""


class GlobTooSlow(Exception):
    """A name took over MATCH_TIME_S to match a glob (`rel` is the name)."""

    def __init__(self, rel: str) -> None:
        super().__init__(rel)
        self.rel = rel


def _expand_braces(pattern: str) -> list[str]:
    """Every pattern `{a,b}` stands for, innermost braces first; GlobTooLarge past MAX_GLOB_PATTERNS."""
    todo, out = [pattern], []
    while todo:
        p = todo.pop()
        m = re.search(r"\{([^{}]*)\}", p)
        if not m:
            out.append(p)
            continue
        head, tail = p[: m.start()], p[m.end() :]
        todo += [head + alt + tail for alt in reversed(m.group(1).split(","))]
        if len(todo) + len(out) > MAX_GLOB_PATTERNS:
            raise GlobTooLarge(pattern)
    return out


def _too_large(pattern: str) -> str:
    return (f"the glob {quoted(pattern)} stands for more than {MAX_GLOB_PATTERNS} patterns (each {{a,b}} doubles "
            "them): use fewer braces, or a * where the names differ")


def _too_slow(tool: str, pattern: str, where: str) -> str:
    return (f"[{tool} stopped: the glob {quoted(pattern)} took over {MATCH_TIME_S:g} s to match {name_line(where)}; "
            "several ** in one glob try every way to split a deep path, use one]")
