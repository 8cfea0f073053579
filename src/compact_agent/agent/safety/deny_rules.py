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
from collections.abc import Iterator, Sequence
from pathlib import Path

from .names import folded


def covering_rule(patterns: Sequence[str], resolved: Path, cwd: Path, roots: Sequence[Path]) -> str | None:
    """The first of `patterns` that matches resolved `path` or a folder above it below one of
    `roots` (`cwd` is the working directory, whose relative paths rules with `/` match), else None."""
    if not patterns:
        return None
    for p in (resolved, *_folders_above(resolved, roots)):
        if pat := _matching(patterns, p, cwd):
            return pat
    return None


def _folders_above(resolved: Path, roots: Sequence[Path]) -> Iterator[Path]:
    """The folders above `resolved` below the outermost of `roots` that holds it (none when none does)."""
    parents = resolved.parents
    depths = [len(root.parts) for root in roots if root in parents]
    if depths:
        yield from parents[: len(resolved.parts) - 1 - min(depths)]


def _matching(patterns: Sequence[str], path: Path, cwd: Path) -> str | None:
    names = [str(path)]
    if path == cwd or cwd in path.parents:
        names.append(path.relative_to(cwd).as_posix())
    names = [folded(n) for n in (*names, path.name)]  # `.ENV` is `.env` where case is ignored
    for pat in patterns:
        if any(fnmatch.fnmatchcase(n, folded(pat)) for n in names):
            return pat
    return None
