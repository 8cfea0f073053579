"""When a session was in use: which prompt-history entries that name no session were typed in it.

The prompt history names the session of each entry (prompt_history.py), but an earlier version
wrote none: `sessions --delete` left those entries, and a secret pasted into the removed session
stayed one up-arrow away. Nothing in such an entry says whose it is but its time, so it goes with a
session when it was typed while that session was in use:

- the session's moments are the time in its id (when it started) and the time of every entry of its
  file and of its archives (what a compaction rewrote away is in them);
- it was in use from `NEAR` before to `NEAR` after each moment (a line typed is saved within
  seconds, as its turn's first request goes; an answer or a command after it is saved too), and
  between two moments at most `GAP` apart: a REPL open between them. A longer pause (a session
  resumed another day) is not in use; the lines typed in it are another session's.

An entry another session of the same directory had typed at the same time (two REPLs open at once)
goes too: it cannot be told apart, and a secret left behind costs more than a line up-arrow no
longer recalls. A session with no moment at all (no entry left, an id without its time) takes none.
"""

from __future__ import annotations

import bisect
import contextlib
import json
import re
from collections.abc import Callable
from datetime import datetime
from pathlib import Path

from .archives import session_archives

NEAR = 300.0  # seconds
GAP = 3_600.0  # seconds
_STARTED = re.compile(r"(\d{8}-\d{6})-")


def moments(root: Path, session_id: str, archive_dir: Path | None) -> list[float]:
    """The POSIX times of session `session_id` of `root`: its start (its id's, local time) and its
    entries' (those of its file and of its archives in `archive_dir`, None when it is not a folder of
    its own), in order. Links are not read."""
    found: list[float] = []
    if m := _STARTED.match(session_id):
        with contextlib.suppress(ValueError, OverflowError, OSError):
            found.append(datetime.strptime(m[1], "%Y%m%d-%H%M%S").timestamp())
    archives = session_archives(archive_dir, session_id) if archive_dir is not None else []
    for path in [*archives, root / f"{session_id}.jsonl"]:
        found += _entry_times(path)
    return sorted(found)


def _entry_times(path: Path) -> list[float]:
    if path.is_symlink():
        return []
    try:
        data = path.read_bytes()
    except OSError:
        return []
    out: list[float] = []
    for line in data.splitlines():
        with contextlib.suppress(ValueError, UnicodeDecodeError, RecursionError, OverflowError, OSError):
            entry = json.loads(line)
            when = entry.get("time") if isinstance(entry, dict) else None
            if isinstance(when, str):
                t = datetime.fromisoformat(when)
                out.append(t.timestamp())  # an entry's time is UTC; one without a zone is read as local
    return out


def typed_while(times: list[float]) -> Callable[[float], bool]:
    """Whether a line typed at a POSIX time was typed while the session of `times` (sorted, its
    `moments`) was in use."""

    def within(when: float) -> bool:
        i = bisect.bisect_left(times, when)
        before = times[i - 1] if i > 0 else None
        after = times[i] if i < len(times) else None
        if before is not None and after is not None and after - before <= GAP:
            return True
        return any(t is not None and abs(when - t) <= NEAR for t in (before, after))

    return within
