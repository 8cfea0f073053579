"""What is left of sessions whose file is gone (removal.py removes it, leftovers.py lists it), and
the names in the folder of sessions that tell a session's files from what is not ours.

Nothing here removes or locks anything: it reads names, and follows no link.
"""

from __future__ import annotations

import os
import re
import stat
from pathlib import Path

from . import prompt_history
from .archive_paths import ARCHIVES as ARCHIVES  # the name removal.py and the analyzer import from here
from .archives import archive_moment
from .journal import SET_ASIDE
from .locks import LOCK_FILE
from .typed import FOLDER as SENT_FOLDER

#: Names in the folder of sessions that belong to all its sessions: never a session's side folder.
SHARED = frozenset({ARCHIVES, SENT_FOLDER, prompt_history.NAME})
#: What a session's side folder holds (store.py and the modules that write there): a folder in the
#: folder of sessions without its session file is removed only if it holds one of these.
SIDE_NAMES = frozenset({LOCK_FILE, "events.jsonl", "tool-results", "collapse", "checkpoints", "layers.json",
                        "notes.md", "todos.json", "tool_search.json", "usage.jsonl", "read_state.json", "foretold.json",
                        SET_ASIDE})
#: A temp file a killed writer left of a session file: `.<id>.jsonl.<hex>.tmp`.
SESSION_TEMP = re.compile(r"\.(.+)\.jsonl\.[0-9a-f]+\.tmp")


def orphans(root: Path) -> list[str]:
    """The ids of sessions whose file `<root>/<id>.jsonl` is gone and of which something is left:
    archives, a side folder holding a session's files (`SIDE_NAMES`), a record of sent prompts,
    temp files. Only names ours alone make count; a name that could be an archive of a session that
    is there is that session's."""
    present = {p.name.removesuffix(".jsonl") for p in entries(root) if p.name.endswith(".jsonl")}
    found: set[str] = set()
    for p in entries(root):
        name = p.name
        if name.startswith(".") and (m := SESSION_TEMP.fullmatch(name)):
            found.add(m[1])
        elif name not in SHARED and not name.startswith(".") and is_side_folder(p):
            found.add(name)
    if (archives := real_dir(root / ARCHIVES)) is not None:
        for p in entries(archives):
            ids = _archive_ids(p.name.removeprefix("."), temp=p.name.startswith("."))
            if ids and not ids & present:
                found.add(max(ids, key=len))
    if (sent := real_dir(root / SENT_FOLDER)) is not None:
        found.update(p.stem for p in entries(sent) if p.name.endswith(".jsonl") and not p.name.startswith("."))
    return sorted(sid for sid in found - present if a_possible_id(sid))


def a_possible_id(session_id: str) -> bool:
    """Whether `session_id` can name a session of the folder: no path, no hidden name, no shared
    folder, no session file's name."""
    return bool(session_id) and not session_id.startswith(".") and not any(c in session_id for c in "/\\\0") \
        and session_id not in SHARED and not session_id.endswith(".jsonl")


def _archive_ids(name: str, temp: bool = False) -> set[str]:
    """The session ids an archive's name (or, `temp`, its temp file's without the leading dot) can
    be of: every start of it before a `-` that leaves a stamp (archives.py)."""
    if temp:
        m = re.fullmatch(r"(.+)\.[0-9a-f]+\.tmp", name)
        if m is None:
            return set()
        name = m[1]
    return {name[:i] for i, c in enumerate(name) if c == "-" and archive_moment(Path(name), name[:i]) is not None}


def is_side_folder(path: Path) -> bool:
    """Whether `path` is a folder itself (not a link) that holds a session's files."""
    return real_dir(path) is not None and any(p.name in SIDE_NAMES for p in entries(path))


def real_dir(path: Path) -> Path | None:
    """`path` if it is a folder itself (not a link to one)."""
    try:
        return path if stat.S_ISDIR(os.lstat(path).st_mode) else None
    except OSError:
        return None


def entries(folder: Path) -> list[Path]:
    """What `folder` holds, in name order; nothing when it cannot be read."""
    try:
        return sorted(Path(e.path) for e in os.scandir(folder))
    except OSError:
        return []
