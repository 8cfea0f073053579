"""Which patterns grep may search a run of lines with at once, finding nothing there only where no
line of the run has a match: then the run costs one search instead of one a line.

A line is searched as its own string, without its ending; the run is the lines joined, each
with its `\\n`, searched with `^` and `$` at each line's start and end (MULTILINE). A match in a
line is a match in the run when the pattern cannot tell the two apart, which is proved here for an
allow-list of the pattern's parts, not patched case by case: anything else (a part not on the
list, a part read otherwise than the engine reads it) is searched line by line, as before the runs.

The argument. A match in a line uses only the line's characters, which the run has too, in the
same order. Around them, the line has nothing before its start where the run has a `\\n`, and
nothing after its end where the run has a `\\n`: `^`, `$`, `\\b` and lookarounds that matched
there in the line still match in the run. With no negation (no `(?!`, `(?<!`, `\\B`, atomic group
or possessive repeat, nor anything undoing a try), more that holds can only add matches, and the
engine tries every way from every start; `\\A \\Z \\z \\G` (true only at the line's ends) are
not on the list. A pattern with both a `$` and a part that can match a `\\n` (`.` under `(?s)`,
`\\s`, `\\W`, `\\D`, `[^…]`, escapes of numbers or names…) is also searched line by line, a
margin kept from when a line was searched with its `\\n`: the argument above does not need it.

A run is only joined from whole lines (a line longer than the piece read at once is searched line
by line), and once a run's search runs out of time no further run is tried in that search.
"""

from __future__ import annotations

import re
from typing import Any

import regex

_QUANTIFIER = re.compile(r"\{(\d*)(,\d*)?\}")
_SAFE_CLASSES = "wdS"  # escapes of classes none of whose characters is a `\n`
_NEWLINE_CLASSES = "sWD"  # escapes of classes that hold a `\n`
_NAMED_GROUP = re.compile(r"\(\?P?<\w+>")
_FLAGS = re.compile(r"\(\?([aisu]*)([:)])")


def _set(pattern: str, i: int) -> tuple[int, bool] | None:
    """Where the set `[` at `i` ends (past its `]`) and whether a `\\n` may be in it; None for a set
    read otherwise than by this scan (a `[` inside: a nested set, a POSIX class)."""
    i += 1
    newline = pattern.startswith("^", i)
    i += newline
    items: list[str | None] = []  # each member: its character, None for a class or an escape of a number
    if pattern.startswith("]", i):
        items.append("]")
        i += 1
    while i < len(pattern) and pattern[i] != "]":
        c = pattern[i]
        if c == "[":
            return None
        if c == "\\" and i + 1 < len(pattern):
            e = pattern[i + 1]
            if e in _SAFE_CLASSES or not (e.isalnum() or e.isspace()):
                items.append(None if e in _SAFE_CLASSES else e)
            else:
                newline = True  # \n, \s, \x0a, \012, \N{...}, \p{...}: taken as holding one
                items.append(None)
            i += 2
        else:
            items.append(c)
            i += 1
    if i >= len(pattern):
        return None
    for k, item in enumerate(items):
        if item == "\n":
            newline = True
        if item == "-" and 0 < k < len(items) - 1:  # a range: its ends as written
            lo, hi = items[k - 1], items[k + 1]
            if lo is None or hi is None or lo <= "\n" <= hi:
                newline = True
    return i + 1, newline


def run_safe(pattern: str) -> bool:
    """Whether a run of whole lines searched with `pattern` (MULTILINE) finds something wherever one
    of its lines does (the argument above); False for anything not on the list."""
    newline = dollar = False
    i = 0
    repeatable = False  # whether a quantifier may follow (it then must not be possessive)
    while i < len(pattern):
        c = pattern[i]
        if c == "\\":
            if i + 1 >= len(pattern):
                return False
            e = pattern[i + 1]
            if e in "AZzGBKmMXgR":
                return False
            if e in _NEWLINE_CLASSES or e.isdigit() or e in "xuUNpPn" or e == "\n":
                newline = True  # \x0a, \012, \N{LINE FEED}, \p{Cc}: taken as matching one (what follows
                # the letter is read as literals, or as a `{...}` not on the list)
            elif not (e in _SAFE_CLASSES or e in "btfvr" or not (e.isalnum() or e.isspace())):
                return False
            i += 2
            repeatable = e != "b"
        elif c == "[":
            if (closed := _set(pattern, i)) is None:
                return False
            i, holds = closed
            newline |= holds
            repeatable = True
        elif c == "(":
            if pattern.startswith("(?", i):
                if pattern.startswith(("(?=", "(?<="), i):
                    i += 3 if pattern[i + 2] == "=" else 4
                elif pattern.startswith("(?:", i):
                    i += 3
                elif m := _NAMED_GROUP.match(pattern, i):
                    i = m.end()
                elif m := _FLAGS.match(pattern, i):
                    newline |= "s" in m.group(1)
                    i = m.end()
                    if m.group(2) == ")":
                        repeatable = False
                        continue
                else:  # (?! (?<! (?> (?| (?( (?# (?R) (?P= (?&, flags m x V w f …: not on the list
                    return False
            elif pattern.startswith("(*", i):
                return False
            else:
                i += 1
            repeatable = False
        elif c in "*+?{":
            end = i + 1
            if c == "{":
                if (m := _QUANTIFIER.match(pattern, i)) is None:
                    if "}" in pattern[i:]:  # maybe a fuzzy constraint, `{e<=1}`
                        return False
                    i, repeatable = i + 1, True  # a literal `{`
                    continue
                end = m.end()
            if not repeatable:  # `(?` and the like are taken above; this is a literal or an error
                return False
            i = end
            if pattern.startswith("?", i):
                i += 1
            elif pattern.startswith("+", i):  # possessive
                return False
            repeatable = False
        else:
            if c == "$":
                dollar = True
            elif c == "\n":
                newline = True
            i += 1
            repeatable = c not in "|^$"
        if newline and dollar:
            return False
    return not (newline and dollar)


class RunSearch:
    """The pattern (and its composed form) to search a run of lines at once, while `on`: a run's
    search that ran out of time turns it off for the rest of the search."""

    def __init__(self, rx: Any, composed: Any) -> None:
        self.rx, self.composed, self.on = rx, composed, True


def across_lines(pattern: str, composed: str) -> RunSearch | None:
    """The run search for `pattern` (`composed`: its NFC form), None where a line-by-line search
    could find a match it would miss (`run_safe`)."""
    if not (run_safe(pattern) and run_safe(composed)):
        return None
    try:
        rx = regex.compile(pattern, regex.MULTILINE)
        return RunSearch(rx, rx if composed == pattern else regex.compile(composed, regex.MULTILINE))
    except (regex.error, ValueError, OverflowError, RecursionError):
        return None
