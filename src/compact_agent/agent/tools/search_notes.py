"""The lines grep and glob end with, after their matches or files: what they did not look through
(what git ignores, symlinked folders, and, when they found nothing, folders of installed packages,
named so the model can give one as the path), how many entries a deny rule hid, and which files
with a match are in an encoding other tools read as bytes."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from .text_encoding import Encoding
from .walk import Found

MAX_NAMED = 10  # files named in the line that says which were not UTF-8
MAX_SKIPPED_NAMED = 5  # entries named in a line saying what was skipped


def _encodings_note(read_as: dict[str, Encoding]) -> str:
    """The line naming the files with a match whose text is in an encoding other tools read as bytes."""
    if not read_as:
        return ""
    names = [f"{name} ({enc.label})" for name, enc in list(read_as.items())[:MAX_NAMED]]
    more = f" and {len(read_as) - MAX_NAMED} more" if len(read_as) > MAX_NAMED else ""
    return (f"[not UTF-8: the lines above are read in each file's encoding, which edits keep: "
            f"{', '.join(names)}{more}]")


def _then(text: str, note: str) -> str:
    """`text`, and `note` on a line after it when there is one (how many entries a deny rule hid)."""
    return f"{text}\n{note}" if note else text


def _entries(n: int) -> str:
    return f"{n:,} entr{'y' if n == 1 else 'ies'}"


class Skipped:
    """The entries a search did not look through that the model may want to: those git ignores
    (`build/`, `app.log`), symlinked folders, which are not followed, and folders of installed
    packages git does not track (`.venv/`, `node_modules/`: walk.py). Each is said in one line
    naming the first few, so "No matches" is not taken for the whole tree's answer; the folders of
    installed packages, which most projects have, only when the search found nothing."""

    def __init__(self, named: Callable[[Path], str]) -> None:
        self.named = named
        self.ignored: list[Found] = []
        self.links: list[Found] = []
        self.installed: list[Found] = []

    def add(self, entry: Found) -> None:
        (self.ignored if entry.ignored else self.installed if entry.installed else self.links).append(entry)

    def _names(self, entries: list[Found]) -> str:
        names = [self.named(e.path) + ("/" if e.folder else "") for e in entries[:MAX_SKIPPED_NAMED]]
        more = f" and {len(entries) - MAX_SKIPPED_NAMED:,} more" if len(entries) > MAX_SKIPPED_NAMED else ""
        return ", ".join(names) + more

    def note(self, verb: str, found: bool = True) -> str:
        """The lines saying what was skipped ('' for nothing): `verb` is `searched` or `listed`;
        `found`, whether the search found anything (the folders of installed packages are named
        only when it found nothing)."""
        lines = []
        if self.ignored:
            lines.append(f"[{_entries(len(self.ignored))} git ignores not {verb}: {self._names(self.ignored)}; "
                         f"give one as the path to search it]")
        if self.links:
            n = len(self.links)
            lines.append(f"[{n:,} symlinked folder{'' if n == 1 else 's'} not followed: {self._names(self.links)}; "
                         f"give one as the path to search where it leads]")
        if self.installed and not found:
            n = len(self.installed)
            lines.append(f"[{n:,} folder{'' if n == 1 else 's'} of installed packages not {verb}: "
                         f"{self._names(self.installed)}; give one as the path to search it]")
        return "\n".join(lines)
