"""What is left of sessions whose file is gone, as `compact-agent sessions` lists it.

A session file removed by hand (or by another program) leaves its archives, its side folder, its
record of sent prompts and its prompts behind (orphans.py). `--delete-older-than`
removed them, unseen: the listing showed sessions alone, so a user could not know they were there,
what they weighed, or that `--delete ID` takes them (it does). They are listed apart, after the
sessions, counted the way `--delete --dry-run` counts them.

Not listed: what a run holds (a session that saved nothing yet has its side folder and no file) and
what was written within the last minute (`removal.TOO_NEW`: a run may be starting in it, and is not
asked for its lock then).
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path

from ..words import plural
from . import removal
from .files import SessionError, size_text
from .orphans import orphans
from .owned_files import last_written


@dataclass(frozen=True)
class Leftover:
    """What is left of one session whose file is gone."""

    session_id: str
    written: float  # the newest time of its files
    parts: list[str]  # `2 archives`, `5 side files`, …
    size: int  # bytes

    def row(self) -> str:
        when = datetime.fromtimestamp(self.written).strftime("%Y-%m-%d %H:%M")
        return f"  {self.session_id}  {when}  {size_text(self.size)}: {', '.join(self.parts) or 'nothing'}"


def leftovers(root: Path, now: Callable[[], float] = time.time) -> list[Leftover]:
    """What is left of `root`'s sessions whose file is gone, newest first."""
    t = now()
    found: list[Leftover] = []
    for sid in orphans(root):
        when = last_written(root, sid)
        if when >= t - removal.TOO_NEW:
            continue
        try:
            counted = removal.remove(root, sid, dry=True)  # a run holding it: SessionLocked
        except (SessionError, OSError):
            continue
        found.append(Leftover(sid, when, counted.parts(), counted.freed))
    return sorted(found, key=lambda x: x.written, reverse=True)


def lines(found: list[Leftover]) -> list[str]:
    """The listing's lines for `found`: a heading that counts them and says how to remove them, and
    one line each. None when there are none."""
    if not found:
        return []
    them = "it" if len(found) == 1 else "them"
    return [f"leftovers of {plural(len(found), 'session')} whose file is gone (-r cannot open {them}; "
            "compact-agent sessions --delete ID removes one):", *(x.row() for x in found)]
