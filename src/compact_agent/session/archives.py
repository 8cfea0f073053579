"""The names of a session's archives (the transcript copied aside before each compaction).

An archive is `compact-history/<session id>-<YYYYmmdd-HHMMSS-ffffff>.jsonl`: fixed-width, so
`ls` lists a session's archives in the order they were written. The stamp of a new one is later
than every earlier archive of the session, also when the clock went back or two came within the
same microsecond (it is then moved on by a microsecond).

Earlier versions named them `<id>-<YYYYmmdd-HHMMSS>.jsonl` and, for a second one within the same
second, `…-2.jsonl`, `…-10.jsonl`: `ls` put `-10` before `-9` and `-2` before the first. Those
names are still read, and `session_archives` puts them in the order they were written.

What a compaction (or another rewrite) was is its boundary, the first line of the file it wrote,
which the next one archives: `head_boundaries` reads a file only that far, so counting them
(/status, /cost, /history) reads a few lines of each archive, not every message of each.
"""

from __future__ import annotations

import contextlib
import re
from datetime import datetime, timedelta
from pathlib import Path
from typing import TYPE_CHECKING

from .files import size_text

if TYPE_CHECKING:
    from .entries import Boundary

STAMP = "%Y%m%d-%H%M%S-%f"
_NEW = re.compile(r"(\d{8}-\d{6})-(\d{6})")
_OLD = re.compile(r"(\d{8}-\d{6})(?:-(\d{1,5}))?")
_ONE = timedelta(microseconds=1)


def archive_moment(path: Path, session_id: str) -> tuple[datetime, int] | None:
    """(when, rank within that moment) of an archive of `session_id`, from its name; None for a
    file that is not one (another session's, whose id starts with this one, included).

    An old name holds the second only: its moment is the end of that second, ranked by its `-N`
    (the first had none), so that it comes after everything written earlier in that second."""
    prefix = f"{session_id}-"
    name = path.name
    if not (name.startswith(prefix) and name.endswith(".jsonl")):
        return None
    stamp = name[len(prefix):-len(".jsonl")]
    try:
        if m := _NEW.fullmatch(stamp):
            return datetime.strptime(f"{m[1]}-{m[2]}", STAMP), 0
        if m := _OLD.fullmatch(stamp):
            return datetime.strptime(m[1], "%Y%m%d-%H%M%S").replace(microsecond=999_999), int(m[2] or 1)
    except ValueError:  # digits that are no date (month 13)
        return None
    return None


def session_archives(archive_dir: Path, session_id: str) -> list[Path]:
    """The archives of `session_id` in `archive_dir`, oldest first, old names and new."""
    if not archive_dir.is_dir():
        return []
    found: list[tuple[tuple[datetime, int], Path]] = []
    for p in archive_dir.glob(f"{glob_escape(session_id)}-*.jsonl"):
        if (moment := archive_moment(p, session_id)) is not None:
            found.append((moment, p))
    return [p for _, p in sorted(found)]


def glob_escape(text: str) -> str:
    """`text` matched as itself by a glob or fnmatch pattern: a folder or a session id may hold
    `[`, `*` or `?`, which would otherwise match nothing or too much."""
    return re.sub(r"([*?\[])", r"[\1]", text)


def next_archive(archive_dir: Path, session_id: str, now: datetime) -> Path:
    """The name of the session's next archive: stamped `now`, or just after its latest archive if
    that is not earlier (a clock set back, or two within a microsecond), and not taken."""
    latest = [m for p in session_archives(archive_dir, session_id) if (m := archive_moment(p, session_id))]
    when = now.replace(tzinfo=None)
    if latest and when <= max(latest)[0]:
        when = max(latest)[0] + _ONE
    while (dest := archive_dir / f"{session_id}-{when.strftime(STAMP)}.jsonl").exists():
        when += _ONE
    return dest


def space_line(archives: list[Path]) -> str:
    """What /status says of the space a session's `archives` take ("" when it has none): nothing
    removes them by itself (each holds the transcript a compaction or a rewind replaced: history the
    user may want), and removing the session removes them (removal.py)."""
    sizes = []
    for p in archives:
        with contextlib.suppress(OSError):  # gone since it was listed
            sizes.append(p.stat().st_size)
    if not sizes:
        return ""
    many = "transcript" if len(sizes) == 1 else "transcripts"
    return (f"{size_text(sum(sizes))} in {len(sizes)} archived {many}, kept until the session is removed "
            "(compact-agent sessions --delete ID)")


def head_boundaries(path: Path) -> list[Boundary]:
    """The boundaries at the head of session file (or archive) `path`, read up to its first message
    or prompt: a rewrite writes its boundary first, then the messages, and nothing writes one after
    them. Each names its archive where it is now (archive_paths.py). Raises what opening it raises
    (regular_file.NotRegular for a FIFO or a device); the lines are read as a load reads them, an
    unreadable one skipped."""
    from .archive_paths import archive_dir_of, boundaries_here
    from .entries import Boundary
    from .lines import readable_entries

    found: list[Boundary] = []
    for entry in readable_entries(path):  # a generator: what follows the head is never read
        kind = entry.get("kind")
        if kind in ("message", "prompt"):
            break
        if kind == "boundary":
            try:
                found.append(Boundary.from_json(entry["boundary"]))
            except (ValueError, KeyError):  # as a load, which skips it
                continue
    return boundaries_here(found, archive_dir_of(path))  # where the archives are now (a moved folder)
