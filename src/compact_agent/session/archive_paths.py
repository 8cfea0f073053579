"""Where a session's archives are now, when the paths its file saved lead nowhere.

A compaction saves the absolute path of the archive it wrote twice: in its boundary (what /history
shows) and in the compaction message (what the model is told to read for the details its summary
lacks). A project's sessions folder follows the project when it is moved or renamed
(project_identity.py), and a home can be moved or copied: the archives go with the folder, the saved
paths did not. /history showed a path that no longer existed, the model was sent it, and its
read_file of it was refused.

A load therefore reads each saved archive path as the archive of that file name in the session's
own `compact-history/` folder when the path is not a file in the sessions folder (it was moved, or
the file names another home's: a copy whose original is still there). The file keeps what it holds
(files an earlier version wrote, and the analyzer, read the same absolute paths); only what a load
gives is where the archives are now. A path whose archive is found nowhere is left as saved.
"""

from __future__ import annotations

import dataclasses
import os
import re
import stat
from collections.abc import Sequence
from pathlib import Path

from pydantic_ai.messages import ModelMessage, ModelRequest, UserPromptPart

from ..context.plumbing.markers import KEY, is_compaction_message, ours
from .entries import Boundary

#: The folder of a session's archives, beside its file (store.py `archive_dir`).
ARCHIVES = "compact-history"

#: A path to an archive in a compaction message's text ("…the transcript it covers is at PATH (read
#: it with read_file…", context/compaction/summary.py): the path, spaces included, up to its note.
_NAMED = re.compile(rf"(?<=is at )(\S[^\n]*?/{ARCHIVES}/[^/\n]+?\.jsonl)(?= \(read it)")


def archive_dir_of(path: Path) -> Path:
    """The folder of the archives the session file (or archive) `path` names: the
    `compact-history/` folder beside a session file, or the archive's own folder."""
    return path.parent if path.parent.name == ARCHIVES else path.parent / ARCHIVES


def archive_here(saved: str, archive_dir: Path) -> str:
    """The archive a file names as `saved`: itself when it is a file in the sessions folder
    (`archive_dir`'s parent), else the regular file of its name in `archive_dir` when there is one
    (the folder was moved, or `saved` is another copy's), else `saved` as it is."""
    if not saved:
        return saved
    path = Path(saved)
    if path.name.startswith(".") or not path.name.endswith(".jsonl"):
        return saved
    try:
        if path.is_relative_to(archive_dir.parent) and path.is_file():
            return saved
        here = archive_dir / path.name
        return str(here) if stat.S_ISREG(os.lstat(here).st_mode) else saved  # a link there is no archive of ours
    except OSError:  # none there, a name too long, a folder that cannot be looked into: as saved
        return saved


def boundaries_here(boundaries: Sequence[Boundary], archive_dir: Path) -> list[Boundary]:
    """`boundaries` with the archive each names where it is now (`archive_here`)."""
    out = []
    for b in boundaries:
        now = archive_here(b.archive, archive_dir)
        out.append(b if now == b.archive else dataclasses.replace(b, archive=now))
    return out


def messages_here(messages: Sequence[ModelMessage], archive_dir: Path) -> list[ModelMessage]:
    """`messages` with each compaction message naming its archives where they are now, in its text
    (what the model reads) and its metadata (what a later compaction carries on). Other messages, and
    one whose archives are where it says, are the very same objects."""
    return [_moved(m, archive_dir) if isinstance(m, ModelRequest) and is_compaction_message(m) else m
            for m in messages]


def _moved(m: ModelRequest, archive_dir: Path) -> ModelRequest:
    changed = False

    def here(match: re.Match[str]) -> str:
        nonlocal changed
        now = archive_here(match[0], archive_dir)
        changed = changed or now != match[0]
        return now

    parts = [dataclasses.replace(p, content=_NAMED.sub(here, p.content))
             if isinstance(p, UserPromptPart) and isinstance(p.content, str) else p for p in m.parts]
    mark = ours(m)
    saved = mark.get("archive")
    metadata = m.metadata
    if isinstance(saved, str) and (now := archive_here(saved, archive_dir)) != saved:
        changed, metadata = True, {**(m.metadata or {}), KEY: {**mark, "archive": now}}
    return dataclasses.replace(m, parts=parts, metadata=metadata) if changed else m
