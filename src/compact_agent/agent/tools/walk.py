"""The walk grep and glob share: bounded (time, interrupt, entries), iterative, from folders opened
as checked, and hiding what a `deny_paths` rule covers.

An entry a deny rule matches by its own name or path (`.env`, `secrets/*`) is not given as a file
to search or list: it comes out marked `hidden`, so the tool leaves it out and says how many it
left out in one line (`hidden_note`), and the model neither learns the name nor keeps looking for
what it cannot see. A folder a rule matches is not entered (its names are not read at all).
"""

from __future__ import annotations

import os
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import NamedTuple

from ..safety.checked_open import Swapped, names_in
from .base import SKIP_DIRS, name_line

WALK_MAX_ENTRIES = 1_000_000


class Bound:
    """When a search must stop: a deadline on `clock`, an interrupt, an entry budget. `why` says
    which one stopped it (empty while none has)."""

    def __init__(self, seconds: float, stop: threading.Event | None = None,
                 clock: Callable[[], float] = time.monotonic, max_entries: int = WALK_MAX_ENTRIES) -> None:
        self.clock, self.stop, self.seconds = clock, stop, seconds
        self.deadline = clock() + seconds
        self.entries_left = max_entries
        self.why = ""

    def left(self) -> float:
        return self.deadline - self.clock()

    def exceeded(self, where: str) -> bool:
        if not self.why:
            where = name_line(where)
            if self.stop is not None and self.stop.is_set():
                self.why = f"interrupted at {where}"
            elif self.left() <= 0:
                self.why = f"stopped after {self.seconds:g} s at {where}"
            elif self.entries_left <= 0:
                self.why = f"stopped after {WALK_MAX_ENTRIES:,} entries at {where}"
        return bool(self.why)


class Found(NamedTuple):
    """An entry the walk gives: a file (`path`, and `rel`, its path relative to the root), or,
    `hidden`, an entry a deny rule covers, which no listing shows (`folder`: a folder not entered)."""

    path: Path
    rel: str
    hidden: bool = False
    folder: bool = False


def _walk(root: Path, max_depth: int | None = None, bound: Bound | None = None,
          prune: Callable[[Path], bool] | None = None,
          hide: Callable[[Path], bool] | None = None) -> Iterator[Found]:
    """The files under root, sorted, depth first, pruning SKIP_DIRS, the dirs `prune` names (by
    their path: root is resolved and symlinked dirs are not entered, so it is the real one) and
    beyond max_depth. An entry `hide` names (a deny rule's) is given `hidden`, a folder of them
    not entered: `hide` is asked about each entry itself only (Permissions.own_deny_rule), as no
    folder above an entry, from `root` (cleared by the caller) down, is one a rule matches. Iterative (no recursion limit); ends early, with `bound.why` set, when `bound` says.

    `root` is resolved and checked, and each folder is listed from a descriptor opened as checked
    (safety/checked_open.py): one swapped for a link since it was listed in the folder above it is
    skipped, and no name of where the link leads is listed. The root swapped so raises Swapped."""
    stack: list[tuple[str, str, int]] = [(str(root), "", 0)]  # (dir path, its path relative to root, depth)
    while stack:
        dirpath, rel_dir, depth = stack.pop()
        if bound is not None and bound.exceeded(rel_dir or "."):
            return
        try:
            entries = sorted(names_in(Path(dirpath)), key=lambda e: e.name)
        except Swapped:
            if not rel_dir:
                raise
            continue
        except OSError:  # unreadable, vanished, or a path too long for the system: skipped
            continue
        subdirs = []
        for e in entries:
            if bound is not None:
                bound.entries_left -= 1
                if bound.exceeded(f"{rel_dir}/{e.name}" if rel_dir else e.name):
                    return
            rel = f"{rel_dir}/{e.name}" if rel_dir else e.name
            path = os.path.join(dirpath, e.name)
            if e.is_dir:  # a symlinked dir is listed as a dir but not entered (as os.walk does): no loops
                if e.name not in SKIP_DIRS and not e.is_link and (max_depth is None or depth + 1 < max_depth) \
                        and not (prune is not None and prune(Path(path))):
                    if hide is not None and hide(Path(path)):
                        yield Found(Path(path), rel, hidden=True, folder=True)
                    else:
                        subdirs.append((path, rel, depth + 1))
            else:
                yield Found(Path(path), rel, hidden=hide is not None and hide(Path(path)))
        stack.extend(reversed(subdirs))
