"""`deny_paths` matched on a path (permissions.py's `Permissions.deny_rule`): the rule that covers
it, by the path itself or by a folder above it.

A pattern is matched against the path whole, its path from the top of the working directory, and
its name (docs/configuration.md), each as a file system that ignores case compares them (`folded`).
A rule that matches a folder covers what is in it: `vault` (or `.aws`) keeps `vault/token.txt` from
the file tools too, not only the folder's listing. Only folders inside the working directory or a
granted dir count, below the root itself: a name rule that happens to match a folder above the
project (`tmp` for a project under /tmp) or the project's own folder does not fence off everything.
"""

from __future__ import annotations

import fnmatch
import functools
import os
import re
from collections.abc import Sequence
from pathlib import Path

from .names import folded


def covering_rule(patterns: Sequence[str], resolved: Path, cwd: Path, roots: Sequence[Path]) -> str | None:
    """The first of `patterns` that matches resolved `path` or, else, the nearest folder above it
    below one of `roots` (`cwd` is the working directory, whose relative paths rules with `/` match),
    else None. What covers a folder is kept (`_FOLDERS`): grep asks this of every file it opens, and
    the files of one folder share the folders above them."""
    if not patterns:
        return None
    pats = tuple(patterns)
    if pat := own_rule(pats, resolved, cwd):
        return pat
    top = _top(resolved, cwd, roots)
    chain: list[Path] = []  # the folders above not yet known, nearest first
    found: str | None = None
    for folder in resolved.parents[: max(0, len(resolved.parts) - 1 - top)]:
        key = (pats, folder, cwd, top)
        if key in _FOLDERS:
            found = _FOLDERS[key]
            break
        chain.append(folder)
    if len(_FOLDERS) > _FOLDERS_KEPT:
        _FOLDERS.clear()
    for folder in reversed(chain):  # from the top down: a folder's own rule before the one above it
        found = own_rule(pats, folder, cwd) or found
        _FOLDERS[(pats, folder, cwd, top)] = found
    return found


#: The rule that covers a folder (by its own path or a folder above it, below the depth `_top`
#: gives), by (patterns, folder, cwd, that depth):
#: a function of the names alone, so never out of date; dropped whole past `_FOLDERS_KEPT`.
_FOLDERS: dict[tuple[tuple[str, ...], Path, Path, int], str | None] = {}
_FOLDERS_KEPT = 20_000


def own_rule(patterns: Sequence[str], path: Path, cwd: Path) -> str | None:
    """The first of `patterns` that matches `path` itself (whole, from the top of `cwd`, or by
    name), not a folder above it: enough for an entry of a walk, which never enters a folder a rule
    matches and starts from a folder `covering_rule` cleared."""
    whole, top = str(path), str(cwd)
    if not patterns or whole == top:  # the working directory itself: its own name fences off nothing,
        return None  # and `.*` (dotfiles) matched it as "." and refused every listing and search of it
    names = [whole, path.name]
    if _inside(path, cwd):
        rel = whole[len(top.rstrip(os.sep)) + 1:]
        names.append(rel if os.sep == "/" else rel.replace(os.sep, "/"))
    names = [folded(n) for n in names]  # `.ENV` is `.env` where case is ignored
    for pat, rx in _compiled(tuple(patterns)):
        for n in names:
            if rx.match(n):
                return pat
    return None


@functools.lru_cache(maxsize=64)
def _compiled(patterns: tuple[str, ...]) -> tuple[tuple[str, re.Pattern[str]], ...]:
    """Each pattern with its folded form compiled once (as `fnmatch.fnmatchcase` would match it)."""
    return tuple((pat, re.compile(fnmatch.translate(folded(pat)))) for pat in patterns)


def _top(resolved: Path, cwd: Path, roots: Sequence[Path]) -> int:
    """How many parts the folder has below which folders above `resolved` count: the working
    directory `cwd` when it holds it, else the outermost of `roots` that does (with the folder above
    the working directory granted, `extra_dirs = [".."]`, the working directory's own name still
    matches nothing); when none does, `resolved`'s own depth (no folder counts)."""
    if _inside(resolved, cwd):
        return len(cwd.parts)
    return min((len(root.parts) for root in roots if _inside(resolved, root)), default=len(resolved.parts))


def _inside(path: Path, folder: Path) -> bool:
    """Whether `path` is below `folder` (not `folder` itself), by their text: `folder in path.parents`,
    without making a Path of each folder above."""
    top = str(folder)
    return str(path).startswith(top if top.endswith(os.sep) else top + os.sep)
