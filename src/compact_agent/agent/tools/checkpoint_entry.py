"""One checkpoint: a user turn, where the conversation stood and each file's state before the turn
first changed it (checkpoints.py keeps the list of them and rewinds to one). It is saved as JSON in
the session's side folder (checkpoint_store.py), and names the message just before where the
conversation stood by a key (`message_key`) that survives what a layer does to the message's content,
so that a rewind can check it still has that message, also after a compaction.
"""

from __future__ import annotations

import hashlib
import json
import os
import stat
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Any

from pydantic_ai.messages import ModelMessage

from ... import secrets
from ...session.typed import PREVIEW_CHARS as PREVIEW_CHARS  # where -c's note reads it without pydantic-ai


@dataclass
class Checkpoint:
    """One user turn: where the conversation stood and each file's state before its first change."""

    index: int
    time: float
    prompt: str
    history_len: int
    turn_index: int
    #: absolute path -> blob id of the content before the first change, None if it did not exist; on
    #: disk a file in the project is named relative to its folder (`entry_saved`, `entry_read`)
    saved: dict[str, str | None] = field(default_factory=dict)
    #: set by a compaction: the transcript it archived, which `history_len` indexes ("" if none was written);
    #: its path here, saved relative to the sessions folder (`archive_saved`, `archive_read`)
    archive: str | None = None
    #: `message_key` of the message before `history_len` (in `archive` when set; None: none, or unknown)
    anchor: str | None = None
    #: absolute paths it saved a version of that was pruned (checkpoint_retention.py): a rewind leaves them
    pruned: list[str] = field(default_factory=list)
    #: blob id of the files the model had read, unchanged since, when the turn began (ReadFileState.current_json);
    #: None: not kept (a checkpoint of an earlier version)
    reads: str | None = None
    #: absolute path -> SHA-256 of the bytes the file tools last wrote to it in this turn: a rewind
    #: that finds the file otherwise keeps the version it replaces (changed by hand, or by a command)
    left: dict[str, str] = field(default_factory=dict)
    #: absolute path -> SHA-256 of what a later write of it in this turn leaves, saved before the file
    #: is written and dropped once it is made (or not) and the list saved again: a kill in between
    #: leaves either this or `left` in the file, both the agent's (absent from lists of older versions)
    writing: dict[str, str] = field(default_factory=dict)
    #: the project's folder its paths are of; None: not recorded (a checkpoint of an earlier version,
    #: which named every file by absolute path, and was not found in this project: `Checkpoints.moved`)
    root: str | None = None

    @property
    def files(self) -> list[Path]:
        return [Path(p) for p in self.saved]

    def to_json(self) -> dict[str, Any]:
        return {
            "index": self.index,
            "time": self.time,
            "prompt": self.prompt,
            "history_len": self.history_len,
            "turn_index": self.turn_index,
            "saved": self.saved,
            **({"archive": self.archive} if self.archive is not None else {}),
            **({"anchor": self.anchor} if self.anchor is not None else {}),
            **({"pruned": self.pruned} if self.pruned else {}),
            **({"reads": self.reads} if self.reads is not None else {}),
            **({"left": self.left} if self.left else {}),
            **({"writing": self.writing} if self.writing else {}),
            **({"root": self.root} if self.root is not None else {}),
        }

    @classmethod
    def from_json(cls, d: dict[str, Any]) -> Checkpoint:
        return cls(
            index=int(d["index"]),
            time=float(d["time"]),
            prompt=str(d.get("prompt", "")),
            history_len=int(d["history_len"]),
            turn_index=int(d.get("turn_index", 0)),
            saved={str(k): (None if v is None else str(v)) for k, v in dict(d.get("saved", {})).items()},
            archive=None if d.get("archive") is None else str(d["archive"]),
            anchor=None if d.get("anchor") is None else str(d["anchor"]),
            pruned=[str(p) for p in d.get("pruned", [])],
            reads=d["reads"] if isinstance(d.get("reads"), str) else None,
            left={str(k): str(v) for k, v in dict(d.get("left", {})).items()},
            writing={str(k): str(v) for k, v in dict(d.get("writing", {})).items()},
            root=d["root"] if isinstance(d.get("root"), str) else None,
        )


_PATHS = ("saved", "left", "writing")  # the fields keyed by a file's path (and `pruned`, a list of them)


def entry_saved(d: dict[str, Any], root: Path | None) -> dict[str, Any]:
    """How the list on disk holds checkpoint `d` (`Checkpoint.to_json`) of the project in `root`:
    each file in it named relative to it, so that the project can be moved or renamed and a rewind
    still finds its files where they are now; one outside it (a folder given with --add-dir) by its
    absolute path. A checkpoint that recorded no folder (`Checkpoint.root`) is kept as it was read."""
    if root is None or "root" not in d:
        return d

    def name(p: str) -> str:
        path = Path(p)
        return path.relative_to(root).as_posix() if path != root and path.is_relative_to(root) else p

    return {**d, **{k: {name(p): v for p, v in d[k].items()} for k in _PATHS if k in d},
            **({"pruned": [name(p) for p in d["pruned"]]} if "pruned" in d else {}), "root": str(root)}


def entry_read(d: dict[str, Any], root: Path | None) -> dict[str, Any]:
    """Checkpoint `d` as the list on disk holds it (`entry_saved`), its files named by absolute
    path in the project's folder `root` as it is now: a relative name is taken from there, and so
    is an absolute one in the folder the checkpoint recorded (the project was in it then). Anything
    else keeps its path (a file outside the project, or a checkpoint of an earlier version)."""
    if not isinstance(was := d.get("root"), str):
        return d
    root = root if root is not None else Path(was)

    def path(p: str) -> str:
        if not Path(p).is_absolute():
            return str(root / p)
        return str(root / Path(p).relative_to(was)) if Path(p).is_relative_to(was) else p

    return {**d, **{k: {path(p): v for p, v in dict(d[k]).items()} for k in _PATHS if k in d},
            **({"pruned": [path(p) for p in d["pruned"]]} if "pruned" in d else {}), "root": str(root)}


def preview(prompt: str) -> str:
    """How a checkpoint shows its prompt: on one line, a key in it redacted, cut at `PREVIEW_CHARS`."""
    shown = " ".join(secrets.redact(prompt).split())
    return shown[: PREVIEW_CHARS - 1] + "…" if len(shown) > PREVIEW_CHARS else shown


def last_written(items: list[Checkpoint], path: str) -> tuple[str | None, str | None, str | None]:
    """What the last of `items` that wrote `path` says of it: what the write left (`left`), what was
    there before (`saved`), and what a later write of it leaves (`writing`): a write cut short (the
    list saved before the file, then a kill) left it as it was, or as the write before it left it.
    (None, None, None) when none of them wrote it (or the list is of an earlier version)."""
    found: tuple[str | None, str | None, str | None] = (None, None, None)
    for cp in items:
        if path in cp.left or path in cp.writing:
            found = cp.left.get(path), cp.saved.get(path), cp.writing.get(path)
    return found


def states(items: list[Checkpoint]) -> tuple[dict[str, str | None], list[Path]]:
    """Each file's state when the first of `items` began: what the earliest of them saved for it
    (nothing of ours touched it between that start and that first save), and the files whose
    version there was pruned (a later one is not their state then)."""
    state: dict[str, str | None] = {}
    pruned: dict[str, None] = {}
    for cp in items:
        for path in cp.pruned:
            if path not in state:
                pruned.setdefault(path)
        for saved_path, blob in cp.saved.items():
            if saved_path not in pruned:
                state.setdefault(saved_path, blob)
    return state, [Path(p) for p in pruned]


def archive_saved(archive: str | None, archive_dir: Path | None) -> str | None:
    """How the list on disk names `archive`: relative to the sessions folder (the parent of the
    session's `archive_dir`, `compact-history/<name>`) when it is in there, so that the folder can
    be moved or copied (a renamed home, another machine) and a rewind still finds it. A home given
    as a relative path gives both relative to the working directory: the same is taken off."""
    if not archive or archive_dir is None:
        return archive
    path, base = Path(archive), archive_dir.parent
    return path.relative_to(base).as_posix() if path.is_relative_to(base) else archive


def archive_read(saved: str | None, archive_dir: Path | None) -> str | None:
    """The path of the archive the list on disk names as `saved` (`archive_saved`). One that is not
    there, or outside the sessions folder (an earlier version saved absolute paths, or paths from
    the working directory where the home was given so), is taken as the archive of that name in the
    session's `archive_dir` when there is one: the folder was moved or copied since."""
    if not saved or archive_dir is None:
        return saved
    base = archive_dir.parent
    path = Path(saved) if Path(saved).is_absolute() else base / saved
    if (path.is_relative_to(base) and path.is_file()) or not (here := archive_dir / path.name).is_file():
        return str(path)
    return str(here)


def message_key(m: ModelMessage) -> str:
    """What identifies a message across a save and a load, whatever a layer did to its content:
    its kind, times, run and response ids, and its parts' kinds, times and tool call ids."""
    def when(t: object) -> str:
        return t.isoformat() if isinstance(t, datetime) else ""

    parts = [[p.part_kind, when(getattr(p, "timestamp", None)), str(getattr(p, "tool_call_id", "") or "")]
             for p in m.parts]
    ident = [m.kind, when(m.timestamp), str(m.run_id or ""), str(getattr(m, "provider_response_id", "") or ""), parts]
    return hashlib.sha256(json.dumps(ident).encode()).hexdigest()[:32]


def standing_at(entry: Path) -> str:
    """What stands now where a rewind puts a saved file back (`entry`), a link at its end not
    followed: "file", "link", "folder", "deleted" (nothing), or "other" (a FIFO, a device; not to be known)."""
    try:
        mode = os.lstat(entry).st_mode
    except FileNotFoundError:
        return "deleted"
    except OSError:
        return "other"
    return ("file" if stat.S_ISREG(mode) else "link" if stat.S_ISLNK(mode) else
            "folder" if stat.S_ISDIR(mode) else "other")


def missing_line(n: int, count: int) -> str:
    """Why there is no checkpoint `n` among `count`, with the numbers there are (they count from 0)."""
    there = ("there are none" if count == 0 else "there is 1, number 0" if count == 1
             else f"there are {count}, numbered 0 to {count - 1}")
    return f"no checkpoint {n}; {there} (/rewind lists them)"


def reads_saved(reads: bytes, root: Path | None) -> bytes:
    """The files the model had read (`ReadFileState.current_json`) as a checkpoint keeps them: each
    in the project's folder `root` named relative to it, as the list names them (`entry_saved`)."""
    def name(p: Path) -> str:
        return p.relative_to(root).as_posix() if root is not None and p != root and p.is_relative_to(root) else str(p)

    return _reads_named(reads, name) if root is not None else reads


def reads_read(reads: bytes, root: Path | None) -> bytes:
    """The files the model had read as `reads_saved` kept them, by absolute path in `root` as it is now."""
    return _reads_named(reads, lambda p: str(p if p.is_absolute() else root / p)) if root is not None else reads


def _reads_named(reads: bytes, name: Callable[[Path], str]) -> bytes:
    """`reads` with each file's path named by `name`; as it is when not of that shape (not ours)."""
    try:
        data = json.loads(reads)
        files = [{**f, "path": name(Path(f["path"]))} for f in data["files"]]
    except (ValueError, TypeError, KeyError, AttributeError, RecursionError):
        return reads
    return json.dumps({**data, "files": files}).encode()


def adopt(items: list[Checkpoint], root: Path) -> bool:
    """Checkpoints of an earlier version (`Checkpoint.root` None) name every file by absolute path.
    When one of them names a file in the project's folder `root` (or none names any), the project
    has not moved since: they are taken as its, to be saved again with their files named relative
    to it (True). Otherwise they keep the paths they had: a rewind leaves those files (`moved`)."""
    old = [cp for cp in items if cp.root is None]
    named = [Path(p) for cp in old for p in [*cp.saved, *cp.pruned]]
    if not old or (named and not any(p.is_relative_to(root) for p in named)):
        return False
    for cp in old:
        cp.root = str(root)
    return True


def moved(items: list[Checkpoint], root: Path | None) -> set[str]:
    """The files checkpoints of an earlier version name outside the project's folder `root` where
    the project no longer is (`adopt` did not take them): where each belongs now is not known, so a
    rewind leaves them, wherever those paths lead now."""
    if root is None:
        return set()
    return {p for cp in items if cp.root is None for p in [*cp.saved, *cp.pruned] if not Path(p).is_relative_to(root)}
