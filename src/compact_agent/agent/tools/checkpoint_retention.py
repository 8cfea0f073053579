"""How much of the files' history `/rewind` keeps: the newest versions, within a cap per session.

Each turn that changes a file saves the file as it was (a version, checkpoints.py), and a version
is needed for as long as a rewind can go back to before that turn. Checkpoints outlive compactions,
so in a long session that is every turn: without a bound the versions grew with the session. A
session keeps at most `MAX_SAVED_BYTES` of them (the distinct contents still referred to). Past it,
the versions of the oldest checkpoints go first, a whole checkpoint at a time, and never those of
the newest (the turn under way can always be undone). A checkpoint pruned stays a place to rewind
to: the conversation goes back, files it saved no version of any more stay as they are, and the
rewind says which (`lost_line`). Rewinding to any later checkpoint loses nothing: a rewind to
turn n only reads versions saved since n.

Versions no checkpoint refers to (a rewind or a pruning took the last reference, or a crash came
between saving a version and the index naming it) are deleted, after the index that no longer names
them is written (atomically, fsynced): a crash in between leaves only files the next load deletes.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Protocol, TypeVar

from ...words import plural


class Saves(Protocol):
    """What pruning reads and changes of a checkpoint (checkpoint_entry.Checkpoint)."""

    saved: dict[str, str | None]
    pruned: list[str]


C = TypeVar("C", bound=Saves)

#: The most the saved versions of one session's files may take on disk (their distinct contents).
MAX_SAVED_BYTES = 64 * 1024 * 1024


def referenced(items: Sequence[Saves]) -> set[str]:
    """The versions (blob ids) some checkpoint still refers to."""
    return {b for cp in items for b in cp.saved.values() if b}


def prune(items: Sequence[C], size_of: Callable[[str], int], cap: int) -> list[C]:
    """Drop the versions of the oldest checkpoints (in place) until those referred to take at most
    `cap` bytes, the newest checkpoint's aside; the checkpoints pruned. A file a checkpoint saw
    created (no version: a rewind deletes it) costs nothing and stays restorable."""
    refs: dict[str, int] = {}
    for cp in items:
        for b in cp.saved.values():
            if b:
                refs[b] = refs.get(b, 0) + 1
    total = sum(size_of(b) for b in refs)
    pruned: list[C] = []
    for cp in items[:-1]:
        if total <= cap:
            break
        versions = [(p, b) for p, b in cp.saved.items() if b]
        if not versions:
            continue
        for path, blob in versions:
            del cp.saved[path]
            cp.pruned.append(path)
            refs[blob] -= 1
            if not refs[blob]:
                total -= size_of(blob)
        pruned.append(cp)
    return pruned


def lost_line(pruned: Sequence[Path], missing: Sequence[Path], cap: int = MAX_SAVED_BYTES,
              fenced: Sequence[Path] = (), sealed: Sequence[Path] = (), moved: Sequence[Path] = ()) -> str:
    """What a rewind says of the files it could not put back ('' when none): their versions were
    pruned (`pruned`), or are gone from the session's folder (`missing`), or they are where the
    file tools may not write (`fenced`: the list of checkpoints names them, the tools never did), or
    their saved version held an API key other than the one in use (`sealed`: keys are kept out of
    the session's files, and that one is not known now), or an earlier version named them by the
    path the project had before it was moved or renamed (`moved`: where they go now is not known)."""
    parts = []
    if sealed:
        parts.append(f"{plural(len(sealed), 'file')} changed since could not be put back: "
                     f"{'its saved version holds' if len(sealed) == 1 else 'their saved versions hold'} an API key "
                     f"other than the one in use, which the session did not keep: {names(sealed)}")
    if fenced:
        parts.append(f"{plural(len(fenced), 'file')} left as {'it is' if len(fenced) == 1 else 'they are'}: "
                     f"outside the working directory or where the file tools may not write: {names(fenced)}")
    if moved:
        parts.append(f"{plural(len(moved), 'file')} {moved_words(moved)}")
    if pruned:
        parts.append(f"{plural(len(pruned), 'file')} changed since could not be put back: the session keeps the "
                     f"newest {_bytes(cap)} of the files' versions and those were older, so "
                     f"{'it stays' if len(pruned) == 1 else 'they stay'} as now: {names(pruned)}")
    if missing:
        parts.append(f"{plural(len(missing), 'file')} changed since could not be put back: "
                     f"{'its saved version is' if len(missing) == 1 else 'their saved versions are'} missing "
                     f"from the session's folder: {names(missing)}")
    return "; ".join(parts)


def moved_words(moved: Sequence[Path]) -> str:
    """What a rewind does with the files an earlier version named by the path the project had before
    it was moved or renamed, and why, naming them (the rewind's line, and the question before it)."""
    one = len(moved) == 1
    return (f"left as {'it is' if one else 'they are'}: an earlier version saved {'it' if one else 'them'} by the path "
            f"the project had before it was moved or renamed, and where {'it goes' if one else 'they go'} in the "
            f"project now is not known: {names(moved)}")


def names(paths: Sequence[Path]) -> str:
    """The first five of `paths`, and how many more (the lines of /rewind)."""
    shown = ", ".join(str(p) for p in paths[:5])
    return shown + (f" and {len(paths) - 5} more" if len(paths) > 5 else "")


def _bytes(n: int) -> str:
    """The cap as a user reads it: '64 MB', '512 KB', '600 bytes'."""
    for unit, size in (("MB", 2**20), ("KB", 2**10)):
        if n >= size:
            return f"{n / size:,.0f} {unit}"
    return plural(n, "byte")
