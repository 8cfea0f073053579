"""Which project holds a session `-r ID` does not find in this folder's sessions.

`-r ID` opens a session of the working directory's project only. Given the id of another project's
session (copied from that project's `compact-agent sessions`), it said `no session ID for
/path/here` and nothing of where that session is, while a folder of the same name gets such a hint
(project_identity.elsewhere). The id names one file in the sessions folders of every project: the
folder that holds it, and the project that folder records (.project.json), say where to run.
The REPL's `/resume ID` and `sessions --delete ID` refuse such an id too, each saying how it is
given there (`Asking`).
"""

from __future__ import annotations

import shlex
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from .files import list_sessions
from .project_identity import _folders, _still_there, elsewhere


@dataclass(frozen=True)
class Asking:
    """What asked for the session, for the line on how to ask it where the session is: `does` what
    that command does to it ('opens'), `args` its words after `compact-agent` ('-r'), and `there`
    how to give it in that project (path quoted, the session's id); `{cwd}` and `{sid}` filled in."""

    does: str
    args: str
    there: str


#: `-r ID` on the command line, where `--cwd` may go anywhere.
RESUME = Asking("opens", "-r", "run this command there, or add --cwd {cwd} to it")
#: `/resume ID` in the REPL, which runs in this folder's project until it is left.
REPL_RESUME = Asking("opens", "-r", "/exit, then compact-agent --cwd {cwd} -r {sid} opens it")
#: `sessions --delete ID`, where `--cwd` goes before the command (after it, it is refused).
DELETE = Asking("removes", "sessions --delete", "run this command there, or compact-agent --cwd {cwd} sessions --delete {sid}")


def after_refusal(work: Path, root: Path, wanted: str) -> str:
    """What `-r wanted` run in `work` (sessions folder `root`) adds to its refusal: '; ' and where
    that session is kept and how to open it (`holder`); where none is, or it is kept for a folder of
    this one's name (this folder copied: project_identity.elsewhere says how to make them its own),
    and this folder has no sessions, the line on that folder's sessions; '' when there is nothing."""
    held = holder(root.parent, root, wanted)
    near = elsewhere(root.parent, work, root) if not list_sessions(root) else None
    if near is not None and (held is None or str(held[0]) in near):  # the line names the folder that holds it
        return f"; {near}"
    return f"; {held[1]}" if held is not None else ""


def holder(projects: Path, root: Path, wanted: str, asking: Asking = RESUME) -> tuple[Path, str] | None:
    """The sessions folder in `projects` that holds the session `wanted` (an id, or the start of
    one), when `root` (this folder's) holds none and one other does, and the line on how to open it
    (or do what `asking` does): run in its project (`--cwd`), a project moved since (its run there
    takes its sessions), or a folder whose project is not recorded (an earlier version's). None when
    none or several hold it."""
    if not wanted or wanted.startswith(".") or "/" in wanted or "\0" in wanted:  # a path: no session's id
        return None
    found: list[tuple[Path, str, dict[str, Any] | None]] = []
    try:
        if (root / f"{wanted}.jsonl").exists() or any(p.stem.startswith(wanted) for p in list_sessions(root)):
            return None  # this folder's own (several, or a file that is none): its refusal says it
        for folder, was in _folders(projects):
            if folder.name == root.name:
                continue
            if (folder / f"{wanted}.jsonl").is_file():
                found.append((folder, wanted, was))
            else:
                found += [(folder, p.stem, was) for p in list_sessions(folder) if p.stem.startswith(wanted)]
    except OSError:  # a name longer than a file's may be
        return None
    if len(found) != 1:
        return None
    folder, sid, was = found[0]
    path = was.get("path") if was is not None else None
    if not isinstance(path, str):
        return folder, f"session {sid} is kept in {folder}, the sessions of another project"
    if was is not None and _still_there(was):
        return folder, f"session {sid} is one of {path}'s: " + asking.there.format(cwd=shlex.quote(path), sid=sid)
    return folder, (f"session {sid} is one of the project that was at {path}, moved or removed since: a run in that "
                    f"project, where it is now, {asking.does} it (compact-agent {asking.args} {sid})")
