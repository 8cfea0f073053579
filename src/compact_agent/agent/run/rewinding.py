"""`/rewind N`: files, conversation and plan back to before message N, also across compactions.

A checkpoint made since the latest compaction indexes the live conversation: it is cut there, as
always. One made before a compaction (`Checkpoint.archive` set) indexes the transcript that
compaction archived: the conversation is that transcript up to the checkpoint, which undoes the
compaction and every message since. That is the conversation as it was before message N, the one
the files now match; keeping the summary instead would leave the model describing changes that are
no longer on disk. The archive is checked against the key of the message before the checkpoint;
when it is missing or holds another conversation, the files are still put back and the
conversation goes back only as far as the live one allows (to the first message sent since the
compaction), which the line shown says. Files whose version from before message N is gone (pruned
to keep the session's file history bounded, checkpoint_retention.py, or deleted) stay as they are,
and the rewind names them (`Rewound.lost`). A file changed since the file tools last wrote it (by
hand, or by a command) is not simply overwritten: the version it replaces is copied first, fsynced,
into the session's `rewind-kept/<time>/` folder (`Rewound.kept`), and the rewind says where.

The other rewrites of the history (not a compaction, nor a rewind: an answer asked for again or a
branch by a program using the library, a prompt cut to a server's window) are followed as they are
written, and one made between two runs when the session opens (`follow_history`): each checkpoint is
found again by the message before it, and one whose message is gone is dropped, which is said.
"""

from __future__ import annotations

import contextlib
import errno
import os
import shutil
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Protocol

from pydantic_ai.messages import ModelMessage

from ... import secrets
from ...context.plumbing.events import one_line
from ...session.files import ensure_private_dir
from ...session.listing import NOT_FOLDING
from ...session.store import SessionWriteError, load_session_file
from ...words import plural
from ..safety.checked_open import read_checked
from ..tools.checkpoint_entry import Checkpoint, message_key
from ..tools.checkpoint_retention import lost_line
from ..tools.checkpoints import Checkpoints
from ..tools.file_state import READ_STATE_FILE, atomic_write_bytes, save_read_state
from .extensions import SessionExtensions
from .session_parts import SessionParts


class AgentSession(SessionParts, Protocol):
    """What /rewind uses of the session (runner.py's `AgentSession`); `cm` and `store` as
    `SessionParts` gives them."""

    messages: list[ModelMessage]
    compacted_at: datetime | None
    ext: SessionExtensions

    @property
    def checkpoints(self) -> Checkpoints: ...


#: The triggers of the rewrites of the session that are neither a compaction nor a rewind.
EDITS = tuple(t for t in NOT_FOLDING if t != "rewind")


def follow_history(checkpoints: Checkpoints, history: list[ModelMessage]) -> str:
    """Follow a rewrite of the history with the checkpoints (Checkpoints.follow); what to tell the
    user of those dropped ("" when none was)."""
    dropped, gone = checkpoints.follow(history)
    if not dropped:
        return ""
    n, names = len(dropped), ", ".join(f"“{cp.prompt}”" for cp in dropped)
    one = n == 1
    they = "it" if one else "they"
    files = ("" if not any(cp.saved or cp.pruned for cp in dropped) else
             f"; the files {they} saved can no longer be put back" if gone else
             f"; a rewind to an earlier turn still puts back the files {they} saved")
    return (f"/rewind: the conversation was changed from an earlier point (an answer asked for again, or a "
            f"branch): {plural(n, 'checkpoint')} ({names}) no longer {'has its' if one else 'have their'} place "
            f"in it and {'was' if one else 'were'} dropped{files}")


@dataclass
class Rewound:
    restored: list[Path]
    #: how the conversation went back, when not simply cut (a checkpoint before a compaction); "" otherwise
    conversation: str = ""
    #: the transcript it came from (or should have), shown on a line of its own
    archive: Path | None = None
    #: the files it could not put back and why, when some ("" otherwise)
    lost: str = ""
    #: the files changed since the tools last wrote them, as the user knows them, and where the
    #: versions it replaced are kept (None: there were none)
    kept: list[Path] = field(default_factory=list)
    kept_in: Path | None = None
    #: False: the conversation could not go back to before the message (its archive unreadable), so
    #: it still holds it: the REPL does not give its prompt back to send a second time
    went_back: bool = True


def rewind(s: AgentSession, n: int) -> Rewound:
    """Save the conversation as it goes back, then put the files back: a session that cannot be
    archived and rewritten (a full disk) changes nothing, neither files nor conversation, and says
    so (`RewindNotSaved`). Once it is saved the process follows the file, and the files are put back
    last; should that fail half-way (`FilesNotRestored`), the conversation is back, checkpoint n and
    those after it are still there, and `/rewind N` again puts back the rest, as the error says."""
    cp = s.checkpoints.get(n)
    if cp is None:
        raise IndexError(s.checkpoints.missing(n))
    live_after = next((c.history_len for c in s.checkpoints.list()[n:] if c.archive is None), None)
    before = _before_compaction(cp, s.messages, live_after, s.store.archives()) if cp.archive is not None else None
    pruned, missing = s.checkpoints.unrestorable(n)
    fenced, sealed = s.checkpoints.fenced(n), s.checkpoints.sealed(n)
    lost = lost_line([shown_path(p, s.cwd) for p in pruned], [shown_path(p, s.cwd) for p in missing], s.checkpoints.max_bytes,
                     [shown_path(p, s.cwd) for p in fenced], [shown_path(p, s.cwd) for p in sealed],
                     [shown_path(p, s.cwd) for p in s.checkpoints.moved(n)])
    messages, said, archive, whole = before or (s.messages[:cp.history_len], "", None, False)
    reads = s.checkpoints.reads_at(n)  # before the rewind deletes what its checkpoints kept
    changed = s.checkpoints.changed(n)
    kept_in = _keep(s, n, changed)  # first: a version that cannot be kept is not replaced
    try:
        archived = s.store.archive()
        s.store.rewrite({"trigger": "rewind", "strategy": "rewind", "tokens_before": 0, "tokens_after": 0,
                         "archive": str(archived), "time": ""}, messages,
                        start_of=Path(cp.archive) if whole and cp.archive else None)
    except OSError as e:
        _unkeep(kept_in)  # nothing replaced: no copy of it
        raise RewindNotSaved(n, e) from e
    s.messages = messages
    s.cm.resume(s.messages)
    # As after a compaction: what the provider reported for a request before the rewind is not
    # the size of the conversation now (/status, /context and the toolbar kept a figure 3x the
    # next request's); until the next request the size is the kept messages' own estimate.
    s.compacted_at = datetime.now(UTC)
    s.ext.plan.rewind_to(s.messages)  # the plan of the turns it undoes goes too
    went_back = before is None or whole or cp.history_len == 0
    try:
        if whole and cp.archive:  # the live conversation is the archive's: its checkpoints index it
            s.checkpoints.back_in(cp.archive)
        _, restored = s.checkpoints.rewind(n)
        if reads is not None:
            _reads_back(s, reads, restored)
    except OSError as e:
        again = s.checkpoints.get(n) is cp
        left = "" if again else _forget_rewound(s.checkpoints)
        # The list's own path, deep in the home folder, would push the rest of the line out of it.
        cause = _os_said(e, s.cwd) if again or isinstance(e, SessionWriteError) else e.strerror or one_line(e)
        raise FilesNotRestored(n, cause, again, e.errno, left=left, went_back=went_back,
                               kept=(len(changed), kept_in)) from e
    return Rewound(restored, said, archive, lost, [shown_path(p, s.cwd) for p in changed], kept_in, went_back=went_back)


def _keep(s: AgentSession, n: int, changed: list[Path]) -> Path | None:
    """Copy each of the files `changed` (resolved, as `Checkpoints.changed` gives them) as it is now
    into a new `rewind-kept/<time>/` folder of the session's, under its path in the project; when
    some are outside it (`extra_dirs`), those of the project go under `project/` and the others
    under `elsewhere/` by their whole path, so that no two share a name. Fsynced, 0600 in 0700
    folders, and never outside that folder (checked); the folder. Each copy is
    the version replaced byte for byte, as the checkpoints keep versions: only the API key in use is
    sealed (`secrets.seal_bytes`, a mark where it was), nothing redacted (a URL's password the user
    typed would exist nowhere once the rewind replaced the file). A copy that cannot be made (a full
    disk) removes those made and raises `RewindNotSaved` naming the file: rewind `n` changes nothing."""
    if not changed:
        return None
    stamp = datetime.now().strftime("%Y%m%d-%H%M%S")
    folder, k = s.store.dir / "rewind-kept" / stamp, 1
    while folder.exists():  # a rewind of the same second
        k += 1
        folder = folder.with_name(f"{stamp}-{k}")
    apart = not all(p.is_relative_to(s.cwd) for p in changed)
    for path in changed:
        target = folder / _kept_name(path, s.cwd, apart)
        try:
            if not target.resolve().is_relative_to(folder.resolve()):  # a path that is not resolved: not ours
                raise OSError(errno.EINVAL, "not a path in the project or the folders the tools may write")
            ensure_private_dir(target.parent)
            atomic_write_bytes(target, secrets.seal_bytes(read_checked(path.resolve())), mode=0o600)
        except OSError as e:
            _unkeep(folder)
            raise RewindNotSaved(n, e, f"the version of {shown_path(path, s.cwd)} changed by hand could not be kept") from e
    return folder


def _unkeep(folder: Path | None) -> None:
    """Remove the copies of a rewind that changed nothing, their folder, and `rewind-kept` left empty."""
    if folder is None:
        return
    shutil.rmtree(folder, ignore_errors=True)  # one `_keep` made new: only our copies are in it
    with contextlib.suppress(OSError):
        folder.parent.rmdir()


def _kept_name(path: Path, cwd: Path, apart: bool) -> Path:
    """Where in the folder of kept copies the copy of `path` (resolved) goes (`_keep`)."""
    if path.is_relative_to(cwd):
        return Path("project", path.relative_to(cwd)) if apart else path.relative_to(cwd)
    return Path("elsewhere", *path.parts[1:])


def _reads_back(s: AgentSession, reads: bytes, restored: list[Path]) -> None:
    """The files the model had read as the turn rewound to began are read again for edit_file,
    those put back as they were then among them (ReadFileState.rewound); a state that cannot be
    read back leaves the reads as they are."""
    try:
        s.env.read_state.rewound(reads, restored)
    except (ValueError, TypeError, KeyError, AttributeError, RecursionError):
        return
    save_read_state(s.env.read_state, s.store.dir / READ_STATE_FILE, s.warnings)


def _one_of(archive: Path, ours: list[Path]) -> bool:
    """Whether `archive` is one of the archives `ours`, however its path is spelt."""
    try:
        return archive.resolve() in {p.resolve() for p in ours}
    except (OSError, RuntimeError):  # a link that loops, a path too long
        return False


def _forget_rewound(checkpoints: Checkpoints) -> str:
    """The files are back and the checkpoints left could not be saved (a full disk): the index on
    disk still lists those rewound, which a later run would offer though their turns are gone.
    Deleting it needs no space: a later run then offers none, until this one saves the checkpoints
    left with the next message. What to add to the line that says so ("" when the index agrees)."""
    forgot = checkpoints.forget_saved()
    return {"deleted": "a later run offers none until your next message saves them",
            "stale": "a later run may still list the checkpoints rewound"}.get(forgot, "")


class RewindNotSaved(SessionWriteError):
    """The session could not be archived and rewritten, or (`what`) a file's version not kept: nothing
    was rewound."""

    def __init__(self, n: int, cause: OSError, what: str = "") -> None:
        said = f"{what} ({cause.strerror or one_line(cause)})" if what else \
            f"the session could not be saved first ({one_line(cause)})"
        super().__init__(f"/rewind {n} changed nothing: {said}; the files and the conversation are as they were")
        self.errno = cause.errno


class FilesNotRestored(SessionWriteError):
    """The conversation went back (saved), then putting the files back failed part of the way
    (`again`: checkpoint n is still there, so the same rewind puts back the rest), or the files
    are back and the checkpoints left could not be saved. `went_back` as in `Rewound`: False, the
    conversation (its archive unreadable) still holds the message, which the line says. `kept`: how
    many files changed by hand had their versions copied first, and the folder (`Rewound.kept_in`),
    which the line names: some may be replaced already, and `/rewind N` again copies to a new one."""

    def __init__(self, n: int, cause: str, again: bool, errno: int | None, then: str = "", left: str = "",
                 went_back: bool = True, kept: tuple[int, Path | None] = (0, None)) -> None:
        rest = (f"putting the files back failed ({cause}): some may be as they were, and /rewind {n} "
                "again puts them back" if again else
                f"the checkpoints left could not be saved ({cause})")
        saved = ("the conversation went back and the session is saved" if went_back else
                 "the session is saved, the conversation as far back as it could go (not before the compaction: "
                 "it still holds that message)")
        one = kept[0] == 1
        copied = (f"the {'version' if one else 'versions'} changed by hand or by a command "
                  f"{'is' if one else 'are'} kept in {kept[1]}" if kept[1] is not None else "")
        super().__init__(f"/rewind {n}: {saved}, but {rest}"
                         + "".join(f"; {more}" for more in (copied, left, then) if more))
        self.n, self.cause, self.again, self.errno, self.left, self.went_back = n, cause, again, errno, left, went_back
        self.kept = kept

    def then(self, more: str) -> FilesNotRestored:
        """The same failure, its line ending with what else happened (the prompt back in the input)."""
        return FilesNotRestored(self.n, self.cause, self.again, self.errno, more, self.left, self.went_back, self.kept)


def _os_said(e: OSError, cwd: Path) -> str:
    """An OS error in words, its file as the user knows it: 'Is a directory: hello.txt', not
    "[Errno 21] Is a directory: '…/.hello.txt.9b52.tmp' -> '…/hello.txt'"."""
    if isinstance(e, SessionWriteError) or not e.strerror:
        return one_line(e)
    name = e.filename2 if e.filename2 is not None else e.filename
    return f"{e.strerror}: {shown_path(Path(os.fsdecode(name)), cwd)}" if name is not None else e.strerror


def shown_path(path: Path, cwd: Path) -> Path:
    """`path` as the user knows it: from the session's directory when it is in there (/rewind's lines)."""
    try:
        return path.relative_to(cwd)
    except ValueError:
        return path


def _before_compaction(cp: Checkpoint, live: list[ModelMessage], live_after: int | None, ours: list[Path]
                       ) -> tuple[list[ModelMessage], str, Path | None, bool]:
    """The conversation before checkpoint `cp`, from the archive a compaction made, what to say of
    it, the archive, and whether it came from there; when that archive cannot give it, as far back as
    the live conversation goes (`_archived` says why)."""
    archive = Path(cp.archive) if cp.archive else None
    if cp.history_len == 0:
        return [], "the conversation is back to its start, before the compaction", None, False
    archived, why = _archived(cp, ours)
    if archived is not None:
        return archived[:cp.history_len], ("the conversation is back to before that message, from the "
                                           "transcript archived before the compaction (the compaction is "
                                           "undone):"), archive, True
    kept = (list(live), "it stays as it is") if live_after is None else (
        live[:live_after], "it goes back to the first message sent since")
    return kept[0], (f"the conversation could not go back before the compaction ({why}): {kept[1]}, and still "
                     "holds that message and those after it, in its summary or kept whole"), archive, False


def indexed_by(cp: Checkpoint, live: list[ModelMessage], ours: list[Path]) -> list[ModelMessage] | None:
    """The conversation checkpoint `cp` indexes (its message at `cp.history_len`): the live one, or
    for a checkpoint made before a compaction the transcript that compaction archived; None when that
    archive cannot give it (`_archived`). The REPL finds there the prompt `/rewind` puts back whole: a
    long prompt a compaction since carries cut came back as the checkpoint's 120-character preview."""
    if cp.archive is None:
        return live
    try:
        return _archived(cp, ours)[0]
    except OSError:  # unreadable: the rewind, which reads it again, says so; the preview comes back
        return None


def _archived(cp: Checkpoint, ours: list[Path]) -> tuple[list[ModelMessage] | None, str]:
    """The transcript the compaction after checkpoint `cp` archived, whole, or None and why not. It is
    taken only when it is one of this session's own archives (`ours`): the list of checkpoints is a
    file on disk, and the one it names could be any session file (another project's conversation
    would go to the model as this one's); and only when its message before the checkpoint is the
    one the checkpoint was made after (`cp.anchor`)."""
    archive = Path(cp.archive) if cp.archive else None
    if archive is None:
        return None, "no transcript was archived"
    if not archive.is_file():
        return None, "the transcript archived then, below, is missing"
    if not _one_of(archive, ours):
        return None, "the transcript it names, below, is not one this session archived"
    archived = load_session_file(archive).messages
    if len(archived) < cp.history_len or (
            cp.anchor is not None and cp.history_len and message_key(archived[cp.history_len - 1]) != cp.anchor):
        return None, "the transcript archived then, below, does not hold it"
    return archived, ""
