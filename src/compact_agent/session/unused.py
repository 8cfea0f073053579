"""What a session leaves that nothing reads: the folder of one that saved nothing, and the temp
files a killed process left behind (store.py calls these).

A session that saved nothing has no file. One this run started may have a file and still hold
nothing a user would resume (`nothing_to_resume`): a start that failed at its first request (a key
the provider rejects, an endpoint that is down) on `/init` saved the program's request and the line
that says the turn failed, and stayed as a session (`the session is saved: -c -p ... continues
it`), listed by `sessions` and `-r`, for a request the user never typed. It goes at the end of the
run as one without a file does. A message the user typed is saved as a `prompt` entry the moment it
is entered (journal.py), so a session holding one is always kept, answered or not: what the user
typed is never lost (the REPL's up-arrow history keeps a command's line, and so does the shell).
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import shutil
import stat
from pathlib import Path

from . import locks
from .answered import gave_answer
from .files import list_sessions, remove_stale_temps
from .owned_files import loose_files
from .project_identity import FILE as IDENTITY
from .prompt_history import Unsent
from .typed import FOLDER as SENT_FOLDER

_RANDOM8 = r"[a-z0-9_]{8}"  # mkstemp's (markers.write_private); the 8 hex digits of every other writer's fit it
_HEX8 = r"[0-9a-f]{8}"  # files.atomic_write, file_state.atomic_write_bytes, unreadable._copy
_HEX12 = r"[0-9a-f]{12}"  # spills.store's temp link
#: The temp files (`.<name>.<random>.tmp`) our writers make in a session's folder, by the folder
#: they make them in, and nowhere else: `rewind-kept/` holds copies of the user's files under their
#: own names (`.env.tmp` is one), so nothing in it is ever taken for a temp of ours.
SIDE_TEMPS = {
    ".": _RANDOM8,  # layers.json, todos.json, read_state.json; notes.md and notes.json (write_private)
    "checkpoints": _HEX8,  # checkpoints.json (checkpoint_store.py)
    "checkpoints/blobs": _HEX8,  # the saved versions, named by their hash
    "tool-results": f"{_RANDOM8}|{_HEX12}",  # spilled results and big inputs (spills.py, big_input.py)
    "tool-results/.by-content": _RANDOM8,  # the texts spilled results link to
    "collapse": _RANDOM8,  # commits.jsonl rewritten after a compaction (collapse.py, write_private)
    "set-aside": _HEX8,  # unreadable lines (journal.set_aside, unreadable.py)
}


#: The kinds of entry a session that holds nothing to resume is made of (store.py writes them).
_NOTHING_KINDS = frozenset({"meta", "message", "prompt"})


def nothing_to_resume(path: Path) -> bool:
    """Whether session file `path` holds nothing a user would resume: no answer of the model and no
    message the user typed (a `prompt` entry with its text), only what the program wrote (a
    command's request, its settings, the line that says the turn failed). A line that cannot be
    read, or an entry of another kind (a compaction's boundary), keeps it: False. So do lines typed
    ahead and never sent, kept in its side folder (prompt_history.Unsent): the next run that opens
    the session gives them back, and the folder going with the session lost them."""
    if _typed_ahead(path.with_name(path.stem)):
        return False
    try:
        with path.open("rb") as f:
            for raw in f:
                if not raw.strip():
                    continue
                entry = json.loads(raw)
                if not isinstance(entry, dict) or entry.get("kind") not in _NOTHING_KINDS or gave_answer(entry):
                    return False
                prompt = entry.get("prompt")
                if entry.get("kind") == "prompt" and not (isinstance(prompt, dict) and set(prompt) == {"unsent"}):
                    return False
    except (OSError, ValueError, RecursionError):
        return False
    return True


def _typed_ahead(folder: Path) -> bool:
    """Whether session folder `folder` keeps lines typed ahead and never sent; one that cannot be read
    is taken to (what the user typed is never lost)."""
    try:
        lines = json.loads((folder / Unsent.NAME).read_bytes())
    except FileNotFoundError:
        return False
    except (OSError, ValueError, RecursionError):
        return True
    return not isinstance(lines, list) or any(isinstance(line, str) for line in lines)


def remove_if_unused(root: Path, path: Path, folder: Path, event_log: Path, started: bool = False) -> None:
    """After the store's lock is let go: a session that saved nothing (its file `path` absent:
    `-p /status`, a REPL left at once) leaves no `folder` behind. Its lock, its `event_log` (what
    the MCP servers said as they connected, of a session there is no file of: `sessions` listed the
    folder as the leftover of one whose file is gone) and its empty side folders go, and so does the
    project's folder `root` when no other session is in it (a first run in a directory made it), and
    what it says of the project's folder when no session is left in it;
    anything else written stays. A session this run `started` whose file holds nothing to resume
    (`nothing_to_resume`) goes whole: its file, its side folder (what its failed turn wrote there:
    checkpoints of files no tool changed, the layers' state) and its record of prompts shown."""
    if path.exists():
        if not started or not nothing_to_resume(path):
            return
        try:
            path.unlink()
        except OSError:
            return
        if folder.is_dir() and not folder.is_symlink():
            shutil.rmtree(folder, ignore_errors=True)
        with contextlib.suppress(OSError):
            (root / SENT_FOLDER / f"{path.stem}.jsonl").unlink(missing_ok=True)
    if folder.is_dir():
        for own in (folder / locks.LOCK_FILE, event_log):
            with contextlib.suppress(OSError):
                own.unlink(missing_ok=True)
        for sub, _dirs, _files in sorted(os.walk(folder), key=lambda w: -len(w[0])):  # deepest first
            with contextlib.suppress(OSError):  # not empty: it holds something, and stays
                os.rmdir(sub)
    if not list_sessions(root):  # which folder the project is goes with its last session (project_identity.py)
        with contextlib.suppress(OSError):
            (root / IDENTITY).unlink(missing_ok=True)
    with contextlib.suppress(OSError):  # another session's files (or its lock) keep it
        os.rmdir(root)


def clean_stale_temps(root: Path, session_id: str, folder: Path) -> int:
    """Remove the temp files of session `session_id` of `root` a crash left (of its file and its
    archives, by the names owned_files.py gives them, never another session's; those in its side
    `folder`): they are never read, only clutter."""
    n = 0
    for kind, p in loose_files(root, session_id):
        if kind == "temp":
            with contextlib.suppress(OSError):
                p.unlink()
                n += 1
    for sub, random in SIDE_TEMPS.items():
        if _real_dirs(folder, sub):
            n += remove_stale_temps(folder / sub, ours=re.compile(rf"\..+\.(?:{random})\.tmp").fullmatch)
    return n


def _real_dirs(folder: Path, sub: str) -> bool:
    """Whether `folder/sub` is a folder, and every folder on the way from `folder` one itself, not a link."""
    paths = [folder]
    for part in Path(sub).parts:
        paths.append(paths[-1] / part)
    try:
        return folder.is_dir() and all(stat.S_ISDIR(os.lstat(p).st_mode) for p in paths[1:])
    except OSError:
        return False
