"""Which files the walk found grep may open, and how grep and glob name a path to the model."""

from __future__ import annotations

import os
import stat
from collections.abc import Callable
from pathlib import Path

from ..safety.permissions import resolve_path
from .base import ToolEnv, name_line, shown_from


def _namer(env: ToolEnv) -> Callable[[Path], str]:
    """How grep and glob name a path: as the model writes it back (`shown_from`, the working
    directory resolved once per search), on its one line. A file name may hold a line break
    (`x\\nsettings.py:3:PASSWORD = ...`): written as its escape (`name_line`, as a compaction
    message lists paths, an emoji sequence as it prints), it cannot start a line of its own and pass
    for a match in another file or a file found."""
    shown = shown_from(env.cwd)
    return lambda p: name_line(shown(p))


class _FileName:
    """A file's name as grep gives it, made the first time it is needed and kept: most files
    searched have no match, and naming one at each of its lines was most of a search's time."""

    __slots__ = ("named", "path", "text")

    def __init__(self, named: Callable[[Path], str], path: Path) -> None:
        self.named, self.path, self.text = named, path, ""

    def __call__(self) -> str:
        if not self.text:
            self.text = self.named(self.path)
        return self.text


def _readable_inside(env: ToolEnv, f: Path) -> Path | None:
    """Where a file found by the walk is, when it may be read: its resolved target (a symlink in
    the project may point anywhere) is inside the fence and not denied, and it is a regular file.
    That resolved path is what is opened (safety/checked_open.py), not the one the walk found."""
    try:
        real = resolve_path(env.cwd, f)
        if env.permissions.read_refusal(real) is not None:
            return None
        return real if stat.S_ISREG(os.stat(real).st_mode) else None
    except (OSError, RuntimeError):  # a path too long, a symlink loop
        return None
