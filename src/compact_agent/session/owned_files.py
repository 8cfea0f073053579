"""What a session owns outside its file and its side folder, and when it was last written: what
a removal removes besides those (removal.py) and what its age is measured by (`--delete-older-than`,
and the listing of leftovers, leftovers.py).

Beside `<root>/<id>.jsonl` and its side folder `<root>/<id>/`, a session owns its archives in
`compact-history/` and their temp files, its record of sent prompts in `sent_prompts/`, and the temp
files a killed writer left of its file; they are found by name, links never followed.
"""

from __future__ import annotations

import contextlib
import os
import re
from collections.abc import Iterator
from pathlib import Path

from .archives import archive_moment, session_archives
from .orphans import ARCHIVES, SESSION_TEMP, a_possible_id, entries, real_dir
from .typed import FOLDER as SENT_FOLDER


def last_written(root: Path, session_id: str) -> float:
    """The newest modification time of session `session_id`'s file and of every file it owns
    (archives and their temp files, its side folder and what it holds, its record of sent prompts,
    temp files of its session file); links are not followed. 0 when none of them is there."""
    times: list[float] = []

    def note(path: Path) -> None:
        with contextlib.suppress(OSError):
            times.append(os.lstat(path).st_mtime)

    note(root / f"{session_id}.jsonl")
    for _, p in loose_files(root, session_id):
        note(p)
    if a_possible_id(session_id) and real_dir(side := root / session_id) is not None:
        for folder, dirs, names in os.walk(side):  # links to folders are listed, never walked into
            for name in dirs + names:
                note(Path(folder) / name)
    return max(times, default=0.0)


def loose_files(root: Path, session_id: str) -> Iterator[tuple[str, Path]]:
    """What session `session_id` of `root` owns outside its file and its side folder, by kind:
    "archive", "sent" (its record of sent prompts), "temp" (of an archive, or of its file). What its
    removal removes and what its age is measured by (`last_written`)."""
    if (archives := real_dir(root / ARCHIVES)) is not None:
        for p in session_archives(archives, session_id):
            yield "archive", p
        for p in entries(archives):
            if _archive_temp(p.name, session_id):
                yield "temp", p
    if (sent := real_dir(root / SENT_FOLDER)) is not None and os.path.lexists(record := sent / f"{session_id}.jsonl"):
        yield "sent", record
    for p in entries(root):
        if (m := SESSION_TEMP.fullmatch(p.name)) is not None and m[1] == session_id:
            yield "temp", p


def _archive_temp(name: str, session_id: str) -> bool:
    """Whether `name` is a temp file of one of the session's archives (`.<archive>.<hex>.tmp`)."""
    m = re.fullmatch(r"\.(.+)\.[0-9a-f]+\.tmp", name)
    return m is not None and archive_moment(Path(m[1]), session_id) is not None

