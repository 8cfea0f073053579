"""Where compact-agent keeps a user's own sessions, said to one looking for them to replay.

`compact-agent analyze` reads our own sessions as any transcript, but nothing named their folder: its
help and docs named Claude Code's and Codex's, and `analyze .` in a project said `no transcripts
found: app.py: not a transcript` — the project's own folder holds its code, while its sessions are in
`$COMPACT_AGENT_HOME/projects/<its name and a hash of its path>/` (default: the platform's user
data dir; config.home_dir). This module finds that folder without touching anything: where a run
in the project would take them over from a folder it had before a move (options.found_root), this
only reads.
"""

from __future__ import annotations

import os
import shlex
from collections.abc import Sequence
from pathlib import Path

from ..config import home_dir
from ..words import plural
from .files import list_sessions, project_slug


def projects_folder() -> Path:
    """The folder holding one folder of sessions per project."""
    return home_dir() / "projects"


def of_project(folder: Path) -> Path | None:
    """The sessions folder of the project at `folder` when it holds sessions; None otherwise (no
    such folder, none saved yet, or `folder` is no folder)."""
    try:
        if not _is_folder(folder):
            return None
        root = projects_folder() / project_slug(folder)
    except (OSError, RuntimeError):  # a path that cannot be resolved (a loop of links)
        return None
    return root if list_sessions(root) else None


def folder_line(root: Path) -> str:
    """`sessions folder: ROOT (this directory's; COMPACT_AGENT_HOME moves it)`: the line `sessions`
    and `config` end their account of a directory with, so a user backing up, removing or replaying
    its session files (`root`: the folder of its sessions) need not guess where they are; and whether
    COMPACT_AGENT_HOME chose the place. The folder is made by the directory's first session: whether
    it is there yet is not said, so `/config` in that session says what `config` said before it."""
    how = "under COMPACT_AGENT_HOME" if os.environ.get("COMPACT_AGENT_HOME") else "COMPACT_AGENT_HOME moves it"
    return f"sessions folder: {root} (this directory's; {how})"


def where_line(cwd: Path | None) -> str:
    """`analyze --help`'s lines on where the user's own sessions are: the folder of every project's
    (on a line of its own, to be copied whole), whether COMPACT_AGENT_HOME chose it, and the command
    that replays `cwd`'s when it has some."""
    how = "set by COMPACT_AGENT_HOME" if os.environ.get("COMPACT_AGENT_HOME") else "COMPACT_AGENT_HOME moves it"
    root = of_project(cwd) if cwd is not None else None
    lines = ["Your own compact-agent sessions, a folder for each project, are kept in", f"  {projects_folder()}"]
    if root is None:
        return "\n".join([*lines, f"({how}; none of them is this directory's)"])
    return "\n".join([*lines, f"({how}); this directory's:", f"  compact-agent analyze {shlex.quote(str(root))}"])


def hint(paths: Sequence[Path]) -> str:
    """What "no transcripts found" adds when a folder was given and held none: where the sessions
    of the project given are (`analyze .` in a project), else where compact-agent's sessions are at
    all; "" when only files were given (their reasons say what they are), or a path given is in
    that folder already."""
    folders = [p for p in paths if _is_folder(p)]
    projects = projects_folder()
    try:
        inside = any(Path(os.path.abspath(p)).is_relative_to(os.path.abspath(projects)) for p in paths)
    except (OSError, ValueError):
        inside = False
    if inside or not folders:
        return ""
    for path in folders:
        if (root := of_project(path)) is not None:
            n = len(list_sessions(root))
            return (f"; {plural(n, 'compact-agent session')} of {path.resolve()} {'is' if n == 1 else 'are'} kept "
                    f"in {root}: compact-agent analyze {shlex.quote(str(root))}")
    return f"; compact-agent's own sessions are kept in {projects}, one folder per project"


def _is_folder(path: Path) -> bool:
    """Whether `path` is a folder; False where that cannot be told (a folder above it unreadable)."""
    try:
        return path.is_dir()
    except OSError:
        return False
