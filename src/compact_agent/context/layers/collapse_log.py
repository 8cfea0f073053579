"""The collapse layer's commits as they are kept: a log of JSON lines, and the saved layer state.

Both are data a crash, a disk or a hand may have damaged. What cannot be used is skipped, never
fatal, and said in one line of our words for the whole file (or state): which it is, that it is not a
valid collapse state, where and why (line 2 is not JSON, line 4 a commit whose ids are not a list of
strings, the last line cut short by an interrupted write), and what the layer goes on with. It used to
be one warning per line in the parser's words ("Expecting value: line 1 column 1 (char 0)", "'list'
object has no attribute 'items'"), and a commit whose fields had the wrong type inside was taken, to
fail later. A commit is checked field by field here, so nothing past `Commit.from_json` meets one.
"""

from __future__ import annotations

import errno
import json
import logging
import os
import stat
from collections.abc import Sequence
from dataclasses import asdict, dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Any

from ..plumbing import crashpoints, secrets
from ..plumbing.regular_file import OWN_FILE_CAP, NotRegular, TooLarge, read_capped

log = logging.getLogger("compact_agent.context.layers.collapse")

_TEXTS = ("id", "first", "last", "digest", "timestamp")  # required, strings
_NUMBERS = ("count", "tokens_before", "tokens_after")  # whole numbers, 0 when left out


class BadCommit(ValueError):
    """A commit that cannot be replayed byte-identically; its message says why, in our words."""


@dataclass
class Commit:
    """One collapse: the range [first .. last] of the history, and the digest that replaces it."""

    id: str
    first: str
    last: str
    digest: str
    timestamp: str  # of the digest part: the last covered message's time, so replays are identical
    count: int = 0
    ids: list[str] = field(default_factory=list)
    tokens_before: int = 0
    tokens_after: int = 0
    time: str = ""

    def to_json(self) -> dict[str, Any]:
        return {"v": 1, **asdict(self)}

    @classmethod
    def from_json(cls, d: object) -> Commit:
        """Rebuild a logged commit; raises `BadCommit` on anything we could not replay byte-identically."""
        if not isinstance(d, dict):
            raise BadCommit(f"{json_kind(d)}, not a commit")
        if missing := [k for k in _TEXTS if k not in d]:
            raise BadCommit(f"a commit without its {listed(missing)}")
        for k in _TEXTS:
            if not isinstance(d[k], str):
                raise BadCommit(f"a commit whose {k} is not a string")
        try:
            datetime.fromisoformat(d["timestamp"])
        except ValueError:
            raise BadCommit("a commit whose timestamp is not a date and time") from None
        for k in _NUMBERS:
            if type(d.get(k, 0)) is not int:
                raise BadCommit(f"a commit whose {k} is not a whole number")
        ids = d.get("ids", [])
        if not isinstance(ids, list) or not all(isinstance(i, str) for i in ids):
            raise BadCommit("a commit whose ids are not a list of strings")
        if not isinstance(d.get("time", ""), str):
            raise BadCommit("a commit whose time is not a string")
        return cls(**{k: d[k] for k in (*_TEXTS, *_NUMBERS, "ids", "time") if k in d})


def json_kind(value: object) -> str:
    """What a JSON value is, as a reader of the file would name it."""
    kinds = ((type(None), "a JSON null"), (bool, "a JSON boolean"), ((int, float), "a JSON number"),
             (str, "a JSON string"), (list, "a JSON list"), (dict, "a JSON object"))
    return next((name for t, name in kinds if isinstance(value, t)), "no JSON value")


def listed(names: Sequence[str]) -> str:
    return names[0] if len(names) == 1 else f"{', '.join(names[:-1])} and {names[-1]}"


def said(whose: str, bad: list[str], kept: int, *, what: str, elsewhere: int = 0) -> None:
    """One warning for a file or state with unusable parts (`bad`, each "line 2 is not JSON"), and what
    the layer goes on with: the `kept` commits read from it and `elsewhere` from the other source."""
    if not bad:
        return
    details = "; ".join(bad[:3]) + (f"; and {len(bad) - 3} more {what}s" if len(bad) > 3 else "")
    total = kept + elsewhere
    n = f"{total} commit{'s' if total != 1 else ''}"
    instead = ("the layer starts with no collapsed spans" if not total
               else f"the layer skips them and goes on with the {n} it read" if kept
               else f"the layer goes on with the {n} of its log")
    lead = "is not a valid collapse state" if not kept else f"holds {what}s that are not a valid collapse state"
    log.warning("%s %s (%s); %s", whose, lead, details, instead)


def read_log(path: Path) -> list[Commit]:
    """Commits in `path`; unreadable or corrupt lines are skipped with a warning, never fatal. Only a
    regular file is read (`read_capped`): a FIFO put there would wait for a writer forever, /dev/zero
    never end."""
    try:
        raw = read_capped(path, OWN_FILE_CAP)
    except FileNotFoundError:
        return []
    except OSError as e:
        why = ("not a regular file" if isinstance(e, NotRegular) else "larger than any log it writes"
               if isinstance(e, TooLarge) else e.strerror or "cannot read it")
        log.warning("cannot read collapse log %s: %s", path, why)
        return []
    commits: list[Commit] = []
    seen: set[str] = set()
    bad: list[str] = []
    lines = raw.splitlines()
    for lineno, line in enumerate(lines, 1):
        if not line.strip():
            continue
        try:
            c = Commit.from_json(json.loads(line))
        except BadCommit as e:
            bad.append(f"line {lineno} is {e}")
            continue
        except (ValueError, RecursionError):  # not JSON (a line too deeply nested to read is none either)
            torn = lineno == len(lines) and not raw.endswith((b"\n", b"\r"))
            bad.append(f"line {lineno} is " + ("cut short (a write interrupted)" if torn else "not JSON"))
            continue
        if c.id not in seen:
            seen.add(c.id)
            commits.append(c)
    said(f"the collapse log {path}", bad, len(commits), what="line")
    return commits


def from_state(d: dict[str, Any], known: list[Commit]) -> list[Commit]:
    """`known` (the log's) with the saved state's commits it lacks; what cannot be used is said."""
    commits, ids, bad = list(known), {c.id for c in known}, []
    items = d.get("commits", [])
    if not isinstance(items, list):
        bad.append(f"its commits are {json_kind(items)}, not a list")
        items = []
    for n, item in enumerate(items, 1):
        try:
            c = Commit.from_json(item)
        except BadCommit as e:
            bad.append(f"commit {n} is {e}")
            continue
        if c.id not in ids:
            ids.add(c.id)
            commits.append(c)
    said("the saved state of the collapse layer", bad, len(commits) - len(known), what="commit",
         elsewhere=len(known))
    return commits


def line_of(commit: Commit) -> str:
    return json.dumps(commit.to_json(), ensure_ascii=False, sort_keys=True) + "\n"


def append_log(path: Path, commit: Commit) -> None:
    """Append one commit durably; a torn last line (crash mid-write) gets a newline first."""
    path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
    line = secrets.redact(line_of(commit)).encode()
    fd = os.open(path, os.O_RDWR | os.O_APPEND | os.O_CREAT | os.O_NONBLOCK, 0o600)
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode):  # a FIFO would take lines until its buffer filled, then wait
            raise OSError(errno.EINVAL, "not a regular file")
        size = st.st_size
        if size and os.pread(fd, 1, size - 1) != b"\n":
            line = b"\n" + line
        crashpoints.write_in_two(fd, line, "collapse")
        os.fsync(fd)
    finally:
        os.close(fd)
    crashpoints.hit("collapse.done")
