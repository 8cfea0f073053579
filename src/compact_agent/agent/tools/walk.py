"""The walk grep and glob share: bounded (time, interrupt, entries), iterative, from folders opened
as checked, hiding what a `deny_paths` rule covers and skipping what git ignores (ignores.py).

An entry a deny rule matches by its own name or path (`.env`, `secrets/*`) is not given as a file
to search or list: it comes out marked `hidden`, so the tool leaves it out and says how many it
left out in one line (`hidden_note`), and the model neither learns the name nor keeps looking for
what it cannot see. A folder a rule matches is not entered (its names are not read at all).

An entry git ignores comes out marked `ignored` (a folder of them not entered), and a symlinked
folder, which is not followed, marked `link`: the tools name them in a line, so "No matches" is
never said of a tree they did not look through.

Folders named as a version control system's store or a tool's cache (`.git`, `__pycache__`:
NEVER_SEARCHED) are never entered. A folder named as installed packages (`node_modules`, `.venv`,
`venv`, `.tox`: INSTALLED_DIRS) is skipped only when it holds what its name says: not when git
tracks files in it (typeshed's `stdlib/venv/`, a project's own code checked in under
`node_modules`), which is the project's source, nor a `venv` that is no virtual environment (a
package named `venv`). One skipped comes out marked `installed`, and the tools name it when they
found nothing, so "No matches" is not taken for an answer about a library's code either.
"""

from __future__ import annotations

import os
import threading
import time
from collections.abc import Callable, Iterator
from functools import partial
from pathlib import Path
from typing import NamedTuple

from ..safety.checked_open import Entry, Swapped, names_in
from .base import INSTALLED_DIRS, NEVER_SEARCHED, name_line
from .git_index import Tracked
from .ignores import Rules, read_rules, rules_above

WALK_MAX_ENTRIES = 1_000_000


class Bound:
    """When a search must stop: a deadline on `clock`, an interrupt, an entry budget. `why` says
    which one stopped it and where (empty while none has). `name` names a path as the tool names
    it to the model (relative to the working directory): the place is named only once the search
    stops, since naming it at every line was most of a search's time."""

    def __init__(self, seconds: float, stop: threading.Event | None = None,
                 clock: Callable[[], float] = time.monotonic, max_entries: int = WALK_MAX_ENTRIES,
                 name: Callable[[Path], str] = str) -> None:
        self.clock, self.stop, self.seconds, self.name = clock, stop, seconds, name
        self.deadline = clock() + seconds
        self.entries_left = max_entries
        self.why = ""

    def left(self) -> float:
        return self.deadline - self.clock()

    def exceeded(self, where: str | Callable[[], str]) -> bool:
        """Whether the search must stop (`why` set, naming `where`, a path or what gives it)."""
        if not self.why:
            if self.stop is not None and self.stop.is_set():
                self.why = "interrupted"
            elif self.left() <= 0:
                self.why = f"stopped after {self.seconds:g} s"
            elif self.entries_left <= 0:
                self.why = f"stopped after {WALK_MAX_ENTRIES:,} entries"
            else:
                return False
            self.why += f" at {name_line(where() if callable(where) else where)}"
        return True

    def ran_out(self, where: str) -> None:
        """The time ran out while a line was searched (the pattern's own timeout was what was left)."""
        if not self.why:
            self.why = f"stopped after {self.seconds:g} s at {name_line(where)}"


class Found(NamedTuple):
    """An entry the walk gives: a file (`path`, and `rel`, its path relative to the root), or,
    `hidden`, an entry a deny rule covers, which no listing shows (`folder`: a folder not entered);
    `ignored`, one git ignores; `link`, a symlinked folder, not followed; `installed`, a folder of
    installed packages, not entered (`_skips_installed`)."""

    path: Path
    rel: str
    hidden: bool = False
    folder: bool = False
    ignored: bool = False
    link: bool = False
    installed: bool = False


def _walk(root: Path, max_depth: int | None = None, bound: Bound | None = None,
          prune: Callable[[Path], bool] | None = None,
          hide: Callable[[Path], bool] | None = None) -> Iterator[Found]:
    """The files under root, sorted, depth first, pruning NEVER_SEARCHED, the dirs `prune` names (by
    their path: root is resolved and symlinked dirs are not entered, so it is the real one) and
    beyond max_depth. An entry `hide` names (a deny rule's) is given `hidden`, a folder of them
    not entered: `hide` is asked about each entry itself only (Permissions.own_deny_rule), as no
    folder above an entry, from `root` (cleared by the caller) down, is one a rule matches. Iterative (no recursion limit); ends early, with `bound.why` set, when `bound` says.
    An entry git ignores is given `ignored` (a folder of them not entered: ignores.py); a symlinked
    folder that would have been entered is given `link`; a folder of installed packages skipped
    (`_skips_installed`), `installed`.

    `root` is resolved and checked, and each folder is listed from a descriptor opened as checked
    (safety/checked_open.py): one swapped for a link since it was listed in the folder above it is
    skipped, and no name of where the link leads is listed. The root swapped so raises Swapped."""
    named = bound.name if bound is not None else str
    above = rules_above(root)
    # (dir path, its path relative to root, depth, the ignore rules above it and its path in their repository)
    stack: list[tuple[str, str, int, Rules | None, str]] = [
        (str(root), "", 0, above[0] if above else None, above[1] if above else "")]
    tracked = Tracked()
    while stack:
        dirpath, rel_dir, depth, rules, in_repo = stack.pop()
        if bound is not None and bound.exceeded(partial(_named_at, named, dirpath)):
            return
        try:
            entries = sorted(names_in(Path(dirpath)), key=lambda e: e.name)
        except Swapped:
            if not rel_dir:
                raise
            continue
        except OSError:  # unreadable, vanished, or a path too long for the system: skipped
            continue
        rules, in_repo = _rules_here(dirpath, entries, rules, in_repo, bool(rel_dir))
        subdirs = []
        for e in entries:
            path = os.path.join(dirpath, e.name)
            if bound is not None:
                bound.entries_left -= 1
                if bound.exceeded(partial(_named_at, named, path)):
                    return
            rel = f"{rel_dir}/{e.name}" if rel_dir else e.name
            if e.is_dir:  # a symlinked dir is listed as a dir but not entered (as os.walk does): no loops
                if e.name in NEVER_SEARCHED or not (max_depth is None or depth + 1 < max_depth) \
                        or (not e.is_link and prune is not None and prune(Path(path))) \
                        or (e.is_link and e.name in INSTALLED_DIRS):
                    continue
                if hide is not None and hide(Path(path)):
                    if not e.is_link:
                        yield Found(Path(path), rel, hidden=True, folder=True)
                elif e.name in INSTALLED_DIRS and _skips_installed(path, e, rules, in_repo, tracked):
                    yield Found(Path(path), rel, folder=True, installed=True)
                elif (ignored := _ignored(rules, in_repo, e)) or e.is_link:
                    yield Found(Path(path), rel, folder=True, ignored=ignored, link=not ignored)
                else:
                    subdirs.append((path, rel, depth + 1, rules, f"{in_repo}/{e.name}" if in_repo else e.name))
            else:
                hidden = hide is not None and hide(Path(path))
                yield Found(Path(path), rel, hidden=hidden, ignored=not hidden and _ignored(rules, in_repo, e))
        stack.extend(reversed(subdirs))


def _ignored(rules: Rules | None, in_repo: str, e: Entry) -> bool:
    return rules is not None and rules.ignored(f"{in_repo}/{e.name}" if in_repo else e.name, e.is_dir)


def _named_at(named: Callable[[Path], str], path: str) -> str:
    return named(Path(path))


def _rules_here(dirpath: str, entries: list[Entry], rules: Rules | None, in_repo: str,
                below_root: bool) -> tuple[Rules | None, str]:
    """The ignore rules in force among a folder's entries, and its path in their repository: a
    folder holding `.git` below the searched one starts a repository of its own; its `.gitignore`
    (a regular file, not a link) adds to the rules."""
    names = {e.name: e for e in entries}
    if below_root and ".git" in names:
        rules, in_repo = Rules.of_repository(Path(dirpath)), ""
    if rules is not None and (g := names.get(".gitignore")) is not None and not g.is_dir and not g.is_link:
        rules = rules.with_file(in_repo, read_rules(Path(dirpath, ".gitignore")))
    return rules, in_repo


def _skips_installed(path: str, e: Entry, rules: Rules | None, in_repo: str, tracked: Tracked) -> bool:
    """Whether the folder `e` at `path`, named as installed packages (INSTALLED_DIRS), is skipped.

    What git tracks is the project's source, so a folder git tracks files in is searched (the
    repository's index says so: `Tracked`), unless git ignores the folder, as its patterns are
    applied to tracked files too (ignores.py). Outside a repository (or one another user owns,
    whose files this user's git would not read either), the name decides, but for `venv`, the one
    name here a Python package can have (the standard library's own module is one): a `venv`
    folder is skipped only when it is a virtual environment, as every tool that makes one marks it
    (`pyvenv.cfg` from venv, virtualenv, uv; `conda-meta` from conda; the activate scripts of
    virtualenv before 20)."""
    if rules is not None:
        child = f"{in_repo}/{e.name}" if in_repo else e.name
        if rules.ignored(child, True):
            return True
        top = path[: len(path) - len(child) - 1]
        if tracked.under(top, child):
            return False
    return e.name != "venv" or any(os.path.lexists(os.path.join(path, marker)) for marker in _VENV_MARKERS)


_VENV_MARKERS = ("pyvenv.cfg", "conda-meta", os.path.join("bin", "activate"), os.path.join("Scripts", "activate"))
