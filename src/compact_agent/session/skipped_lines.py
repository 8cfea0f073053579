"""Which lines inside a session file a load skipped, by number and why: what `SessionStore.load_messages()`
tells a library caller, who sees none of the terminal agent's warnings.

The terminal agent's resume skips a line that cannot be read (overwritten with garbage, valid JSON
that holds no message), repairs the history around it (a tool call whose result the line held is
closed as interrupted) and says so in one warning; holding the session's lock it also sets the line
aside (unreadable.py). A program gets the history from `load_messages()` alone, and the message the
line held was missing from it without a word. Now the store says it there: one line naming the file,
each line's number and what is wrong with it, then the load's own warning, the terminal agent's line
(`SessionStore.warnings`, each also logged on the `compact_agent.session` logger). A last line
without its newline is a crash's torn append (journal.py), expected: it is none of them.
"""

from __future__ import annotations

import logging
from pathlib import Path

from ..regular_file import open_regular
from ..words import plural
from .lines import MAX_LINE_BYTES, parsed
from .unreadable import is_unreadable, lines_of

log = logging.getLogger("compact_agent.session")

_NAMED = 5  # lines named one by one; the rest counted


def inside(path: Path, cap: int = MAX_LINE_BYTES) -> list[tuple[int, str]]:
    """(its number, from 1, and what is wrong) of each line of `path` ending with its newline that
    a load skips as unreadable (unreadable.py decides it, as the load does); [] when the file cannot
    be opened as a regular file any more."""
    try:
        with open_regular(path) as f:
            return [(n, _why(line, cap)) for n, (_, _, line) in enumerate(lines_of(f.fileno(), cap), 1)
                    if is_unreadable(line)]
    except OSError:
        return []


def _why(line: bytes | None, cap: int) -> str:
    """What is wrong with `line`, one a load skips."""
    if line is None:
        return f"longer than {plural(cap, 'byte', grouped=True)}"
    try:
        entry, _ = parsed(line)
    except UnicodeDecodeError:
        return "not UTF-8 text"
    except ValueError:
        return "not JSON"
    except RecursionError:
        return "JSON nested too deeply"
    if not isinstance(entry, dict):
        return "JSON, but not an entry"
    kind = entry.get("kind")  # one a load knows (message, boundary, meta, prompt): another is kept
    return f"a {kind} entry that holds no {kind} this version reads"


def said(path: Path, skipped: list[tuple[int, str]]) -> str:
    """The one line that names the `skipped` lines (at least one) of the session file at `path`."""
    if len(skipped) == 1:
        (n, why), = skipped
        return f"line {n} of {path} cannot be read ({why}) and was skipped: the history is returned without it"
    named = [f"{n} ({why})" for n, why in skipped[:_NAMED]]
    more = len(skipped) - len(named)
    which = f"{', '.join(named)} and {more} more" if more else f"{', '.join(named[:-1])} and {named[-1]}"
    return f"lines {which} of {path} cannot be read and were skipped: the history is returned without them"


def told(path: Path, skipped: list[tuple[int, str]], warnings: list[str]) -> list[str]:
    """What `load_messages()` says of a load of `path` that skipped the lines `skipped` inside it: the line
    naming them, then the load's `warnings` (the terminal agent's: what it repaired, where the lines were
    set aside), each logged; [] when it skipped none (a torn last line alone is expected: journal.py)."""
    if not skipped:
        return []
    lines = [said(path, skipped), *warnings]
    for line in lines:
        log.warning("%s", line)
    return lines
