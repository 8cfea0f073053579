"""File-history checkpoints behind `/rewind`: undo what the agent wrote since a user turn.

Each user turn opens a checkpoint. Before `write_file`/`edit_file` first changes a file within that
checkpoint, the file's bytes are saved (or the fact that it did not exist), so rewinding to turn n
puts every file back as it was when turn n started and tells the caller how long the conversation
was then. Only changes made through our tools are tracked: what a `bash` command does is not.
What the tools last wrote to each file is known by its hash (`wrote`), so a rewind can tell a file
changed since, by hand or by a command (`changed`), whose version it would replace: the caller keeps it.

State lives on disk (`checkpoints.json` + content-addressed blobs, atomic writes, 0600 files in a
0700 dir, since file contents may be private: checkpoint_store.py) so a resumed session can still
rewind. The versions kept are bounded per session, the oldest pruned first (checkpoint_retention.py).

A compaction rewrites the history, so a checkpoint's `history_len` no longer indexes the live
conversation; the files it saved are as good as before. The caller says so (`compacted`): each
checkpoint then points into the transcript the compaction archived, where its `history_len` still
holds, with the key of the message just before it (`message_key`) so that a rewind can check the
archive is the conversation it indexed. Rewinding to such a checkpoint puts the files back as
usual; the conversation is taken from that archive (agent/run/rewinding.py).

Every checkpoint keeps that key from the start, so the other rewrites of the history (an answer asked
for again, a branch, one made between two runs) are followed too (`follow`, checkpoint_follow.py).
"""

from __future__ import annotations

import builtins
import contextlib
import hashlib
import json
import logging
import time
import zlib
from collections.abc import Callable, Sequence
from pathlib import Path

from pydantic_ai.messages import ModelMessage

from ...regular_file import NotRegular
from ..safety.checked_open import make_folders, read_checked, remove_file
from . import checkpoint_entry, checkpoint_follow, file_state
from .checkpoint_entry import Checkpoint, archive_read, archive_saved, entry_read, entry_saved, message_key
from .checkpoint_entry import standing_at as _kind
from .checkpoint_retention import MAX_SAVED_BYTES, prune, referenced
from .checkpoint_store import CheckpointStore

log = logging.getLogger(__name__)

class Checkpoints:
    """The checkpoints of one session, persisted under `store_dir` (loaded on construction); the
    versions of files they keep take at most `max_bytes` (checkpoint_retention.py).

    `may_restore` says whether a rewind may put a file back where it is (resolved now): a list that
    was not ours, or a folder since replaced by a link out of the project, must not make a rewind
    write or delete a file the tools could not. `root`: the project's folder, which the list names
    its files relative to (`entry_saved`: a moved project's rewind puts them back where it is now).
    `archive_dir`: the session's archives (`SessionStore.archive_dir`), which the list names
    relative to the sessions folder (`archive_saved`)."""

    def __init__(self, store_dir: Path, max_bytes: int = MAX_SAVED_BYTES, *, root: Path | None = None,
                 may_restore: Callable[[Path], bool] | None = None, archive_dir: Path | None = None) -> None:
        self.store_dir = Path(store_dir)
        self.root = Path(root).resolve() if root is not None else None
        self.archive_dir = archive_dir
        self.max_bytes = max_bytes
        self.may_restore = may_restore
        self._store = CheckpointStore(self.store_dir)
        self._items: list[Checkpoint] = []
        #: Why this session keeps none (`CheckpointStore.blocked`), or None: said once, and by /rewind.
        self.off: str | None = None
        self._pending: tuple[str, dict[str, str]] | None = None  # before_write's path, and `left` before it
        #: The files the last `rewind` left: a folder stood where each goes, or changed after `changed` read them
        self.passed, self.raced = builtins.list[Path](), builtins.list[Path]()
        self._seen: tuple[int, dict[str, str]] = (-1, {})  # `changed`'s n, and the SHA-256 of each file it read
        self._moved: set[str] = set()  # checkpoint_entry.moved
        self._whole = False  # the next save writes every checkpoint: some were read as an earlier version saved them
        self.load()

    def load(self) -> Checkpoints:
        """Read the persisted checkpoints; a missing or corrupt index starts empty (with a warning),
        something else where they go turns them off (`off`): the turns run without them.
        Versions the index read names no longer are deleted (a crash left them); a corrupt index
        leaves every one where it is."""
        self._items, self._moved = [], set()
        index = self._store.index
        if (off := self._store.blocked()) is not None:
            if off != self.off:
                log.warning("checkpoints are off for this session, /rewind has none: %s", off)
            self.off = off
            return self
        if not index.exists():
            return self
        try:
            self._items = [Checkpoint.from_json(entry_read(d, self.root)) for d in self._store.read_list()]
            for cp in self._items:
                cp.archive = archive_read(cp.archive, self.archive_dir)
            self._whole = self.root is not None and checkpoint_entry.adopt(self._items, self.root)
            self._moved = checkpoint_entry.moved(self._items, self.root)
            self._gc()
        except (OSError, ValueError, KeyError, TypeError, AttributeError, RecursionError) as e:
            why = "not UTF-8 text" if isinstance(e, UnicodeDecodeError) else "not valid JSON" \
                if isinstance(e, json.JSONDecodeError) else "not in the expected shape"
            why = "not a regular file" if isinstance(e, NotRegular) else why
            log.warning("ignoring unreadable checkpoints in %s: %s", index, getattr(e, "strerror", None) or why)
            self._items = []
        return self

    def _save(self, newest: bool = False) -> None:
        """Save the list. `newest`: only the newest checkpoint changed since the last save (a turn
        begun, a file written in it), so the others are not made into JSON again: each save of a long
        session did, 1,500 of them each time (checkpoint_store.py saves only what changed)."""
        if self.off is not None:
            return
        last = len(self._items) - 1
        since = last if newest and self._items and not self._whole and self._store.knows(last) else 0
        self._store.write_list([{**d, "archive": archive_saved(d["archive"], self.archive_dir)} if "archive" in d else d
                                for d in (entry_saved(c.to_json(), self.root) for c in self._items[since:])], since)
        self._whole = False

    def forget_saved(self) -> str:
        """After a save failed: when the list on disk names more checkpoints than this one holds (a
        rewind's that could not be saved), delete it, which needs no room; a later run then offers
        none, not checkpoints whose turns are gone, until the next save. "" when the list on disk
        does not (none, one a load ignores, or saved after all), "deleted" or "stale" (it could not be)."""
        return self._store.forget_list(len(self._items))

    def begin(self, turn_index: int, history_len: int, prompt: str,
              before: ModelMessage | None = None, *, retry: bool = False, reads: bytes | None = None) -> Checkpoint:
        """Open the checkpoint for a new user turn; later writes are attributed to it. `before`: the
        message before `history_len`, which `follow` finds it by after a rewrite. `retry`: the turn
        is sent again after its attempt failed (agent/run/unfinished.py): it goes on in the
        checkpoint that attempt opened, if that is the last, so /rewind lists the message once and
        puts back the files as they were before the first attempt. `reads`: the files the model had
        read as the turn began (ReadFileState.current_json), which a rewind to it brings back.

        A list that cannot be written (a disk too full for a new file) does not end the turn: it
        failed every turn before its message was sent, and the message dropped out of the
        conversation. The checkpoint is kept here and saved with the next list written; a tool's
        write still saves the list first, or is not made (`before_write`)."""
        preview = checkpoint_entry.preview(prompt)  # shown by /rewind, and saved
        anchor = message_key(before) if before is not None and history_len > 0 else None
        last = self.current
        if self.off is not None:  # none kept: a write saves nothing (`current` stays None)
            return Checkpoint(0, time.time(), preview, history_len, turn_index, anchor=anchor)
        if retry and last is not None and last.archive is None and \
                (last.history_len, last.anchor, last.prompt) == (history_len, anchor, preview):
            return last
        cp = Checkpoint(len(self._items), time.time(), preview, history_len, turn_index, anchor=anchor,
                        root=str(self.root) if self.root is not None else None)
        if reads is not None:
            # Kept once, however many turns began in it; not kept, a rewind to it asks the model to
            # read its files again.
            with contextlib.suppress(OSError):
                cp.reads = self._store.keep(zlib.compress(checkpoint_entry.reads_saved(reads, self.root)))[0]
        self._items.append(cp)
        try:
            self._save(newest=True)
        except OSError as e:  # kept here, and saved with the next save of the list: the turn goes on
            log.warning("/rewind's checkpoint of this message could not be saved (%s: %s): this run keeps it, "
                        "and saves it when it can", self._store.index, e.strerror or e)
        return cp

    def reads_at(self, n: int) -> bytes | None:
        """The files the model had read as checkpoint n began (`begin`'s `reads`); None: not kept."""
        cp = self.get(n)
        kept = self._store.version(cp.reads) if cp is not None and cp.reads else None
        try:
            return checkpoint_entry.reads_read(zlib.decompress(kept), self.root) if kept is not None else None
        except zlib.error:  # not one we wrote
            return None

    @property
    def current(self) -> Checkpoint | None:
        return self._items[-1] if self._items else None

    def before_write(self, path: Path, data: bytes | None = None) -> None:
        """Save `path` as it is now, once per checkpoint, before a tool changes it (none without an open
        checkpoint). `data`: what the tool writes, saved in the same list as what it leaves (`wrote`);
        a later write's too, beside what the one before it left, until `wrote` (`Checkpoint.writing`)."""
        cp = self.current
        if cp is None:
            return
        self._seen[1].pop(key := str(Path(path).resolve()), None)  # what `changed` read is not what a rewind finds
        if key in cp.saved:
            if data is not None:
                cp.writing[key] = hashlib.sha256(data).hexdigest()
                try:
                    self._save(newest=True)
                except OSError:
                    pass  # its version is saved: the write goes on (killed after it, a rewind keeps a copy)
                except BaseException:
                    del cp.writing[key]  # not made
                    raise
            return
        p, pruned = Path(key), False
        if p.is_file():
            now = read_checked(p)  # as checked: a link swapped in would put its target in the project on a rewind
            cp.saved[key], grew = self._store.keep(now)
            pruned = grew and bool(prune(self._items, self._store.size, self.max_bytes))
        else:
            cp.saved[key] = None
        if data is not None:  # taken back by `wrote` if the write is not made
            self._pending = (key, dict(cp.left))
            cp.left[key] = hashlib.sha256(data).hexdigest()
        try:
            self._save(newest=not pruned)  # the index first: a crash before the deletions leaves only unnamed files
        except BaseException:
            self.wrote(path, None)
            raise
        if pruned:
            self._gc()

    def wrote(self, path: Path, data: bytes | None) -> None:
        """The file tools wrote `data` to `path` (after `before_write`): what the session left it as.
        None: the write was not made; what `before_write` took it to leave is taken back."""
        pending, self._pending = self._pending, None
        if (cp := self.current) is None or self.off is not None:
            return
        key = str(Path(path).resolve())
        if pending is not None and pending[0] == key:
            if data is not None:
                return  # `before_write` saved it, before the write
            cp.left = pending[1]
        else:
            cp.writing.pop(key, None)  # made or not: what it or the write before it left stands alone
            if data is not None:
                cp.left[key] = hashlib.sha256(data).hexdigest()
        with contextlib.suppress(OSError):  # the write was made (or not): the next save keeps it
            self._save(newest=True)

    def changed(self, n: int) -> builtins.list[Path]:
        """The files a rewind to checkpoint n would replace that are not as the file tools last left
        them (changed by hand or by a command since), nor already as it puts them back, each where it
        is now (`_place`: a link there is no file changed, `standing` says it). A file whose last write
        is not known (a checkpoint of an earlier version) is not among them."""
        found: builtins.list[Path] = []
        self._seen = (n, {})
        for path_s, blob in self._states(n)[0].items() if 0 <= n < len(self._items) else ():
            left, before, writing = checkpoint_entry.last_written(self._items[n:], path_s)
            try:
                real = self._place(Path(path_s)) if left is not None or writing is not None else None
                now = hashlib.sha256(read_checked(real)).hexdigest() if real and _kind(real) == "file" else None
            except OSError:
                continue
            if real is not None:
                self._seen[1][path_s] = now if now is not None else _kind(real)
            if real is not None and now is not None and now not in (left, writing, blob, before) and \
                    (blob is None or self._store.version(blob) is not None):
                found.append(real)  # one left as it is (its version missing or sealed) loses nothing
        return found

    def standing(self, n: int) -> dict[str, builtins.list[Path]]:
        """What a rewind to checkpoint n finds where its files go (`_place`), other than a file: a "folder"
        (left: the file not put back, one made since not removed), a "link" (replaced by the file, or
        removed: never followed), nothing where a version goes back ("deleted": put back)."""
        found: dict[str, builtins.list[Path]] = {"folder": [], "link": [], "deleted": []}
        for path_s, blob in self._states(n)[0].items() if 0 <= n < len(self._items) else ():
            if (real := self._place(Path(path_s))) is None or (blob and self._store.version(blob) is None):
                continue
            if (kind := _kind(real)) in ("folder", "link") or (kind == "deleted" and blob is not None):
                found[kind].append(real)
        return found

    def list(self) -> list[Checkpoint]:
        return list(self._items)

    def get(self, n: int) -> Checkpoint | None:
        return self._items[n] if 0 <= n < len(self._items) else None

    def compacted(self, history: Sequence[ModelMessage], archive: Path | None) -> None:
        """A compaction archived `history` (the conversation as it was) at `archive` and rewrote it:
        every checkpoint that pointed into it now points into the archive. Earlier ones keep the
        archive they were given. Their files stay restorable."""
        moved = False
        for cp in self._items:
            if cp.archive is not None:
                continue
            if 0 < cp.history_len <= len(history):
                cp.anchor = message_key(history[cp.history_len - 1])
            cp.archive = str(archive) if archive is not None else ""
            moved = True
        if moved:
            self._save()

    def back_in(self, archive: str) -> None:
        """A rewind made the conversation `archive` holds (up to a checkpoint) the live one again:
        the checkpoints pointing into it index the live conversation once more."""
        for cp in self._items:
            if cp.archive == archive:
                cp.archive = None  # its anchor, the archive's message before it, is the live one's now
        self._save()

    def follow(self, history: Sequence[ModelMessage]) -> tuple[builtins.list[Checkpoint], bool]:
        """The history was rewritten, not by a compaction (see `compacted`): the checkpoints follow it
        (checkpoint_follow.py). Returns those dropped (the rest are numbered again from 0) and whether
        files one of them saved went with it (no checkpoint came before it)."""
        done = checkpoint_follow.follow(self._items, history)
        if done.dropped:
            self._items = done.kept
        if done.dropped or done.changed:
            self._save()
        if done.dropped:
            self._gc()
        return done.dropped, done.gone

    def missing(self, n: int) -> str:
        """Why there is no checkpoint `n`, with the numbers there are (they count from 0)."""
        return checkpoint_entry.missing_line(n, len(self._items))

    def _states(self, n: int) -> tuple[dict[str, str | None], builtins.list[Path]]:
        return checkpoint_entry.states(self._items[n:])  # each file's state when checkpoint n began

    def unrestorable(self, n: int) -> tuple[builtins.list[Path], builtins.list[Path]]:
        """The files a rewind to checkpoint n cannot put back: those whose version was pruned, and
        those whose saved version is missing from the store (deleted by hand)."""
        if not 0 <= n < len(self._items):
            return [], []
        state, pruned = self._states(n)
        return pruned, [Path(p) for p, blob in state.items() if blob and not self._store.blob(blob).is_file()]

    def sealed(self, n: int) -> builtins.list[Path]:
        """The files of checkpoint n whose saved version held a key that is not the one in use now
        (`secrets.unseal_bytes`): a rewind leaves them as they are."""
        if not 0 <= n < len(self._items):
            return []
        return [Path(p) for p, blob in self._states(n)[0].items()
                if blob and self._store.blob(blob).is_file() and self._store.version(blob) is None]

    def fenced(self, n: int) -> builtins.list[Path]:
        """The files of checkpoint n a rewind leaves alone because `may_restore` refuses them."""
        if not 0 <= n < len(self._items) or self.may_restore is None:
            return []
        return [Path(p) for p in self._states(n)[0] if p not in self._moved and self._place(Path(p)) is None]

    def moved(self, n: int) -> builtins.list[Path]:
        """The files of checkpoint n an earlier version saved where the project was (checkpoint_entry.moved)."""
        return [Path(p) for p in self._states(n)[0] if p in self._moved] if 0 <= n < len(self._items) else []

    def _place(self, path: Path) -> Path | None:
        """Where a rewind puts `path` back, or removes it: in its folder resolved, as `may_restore` judged
        it, a link at its end not followed (the list names files resolved: a link there now is the user's,
        replaced or removed, never written through); None when refused or its folder does not resolve."""
        try:
            entry = path.parent.resolve() / path.name
        except (OSError, RuntimeError):
            return None
        fine = str(path) not in self._moved and (self.may_restore is None or self.may_restore(entry))
        return entry if fine else None

    def rewind(self, n: int) -> tuple[int, builtins.list[Path]]:
        """Restore files to their state when checkpoint n began and drop checkpoints n and later: (history
        length to truncate the conversation to, restored paths). Files it cannot put back stay as they are
        (`unrestorable`, `fenced`, `sealed`; `passed` and `raced`, as it found them)."""
        if not 0 <= n < len(self._items):
            raise IndexError(self.missing(n))
        state, _pruned = self._states(n)
        restored: builtins.list[Path] = []
        self.passed, self.raced, seen = [], [], self._seen[1] if self._seen[0] == n else {}
        for path_s, blob in state.items():
            path = Path(path_s)
            if blob is not None and not self._store.blob(blob).is_file():
                continue  # its version is missing: `unrestorable` names it
            if (real := self._place(path)) is None:
                continue  # outside what the tools may write: `fenced` names it
            if _kind(real) == "folder":  # the user's, as `standing` said: the other files go back all the same
                self.passed.append(real)
                continue
            if blob is None:  # made since: removed from its folder as the fence judges it again now
                if (entry := self._place(path)) is not None and remove_file(entry):
                    restored.append(path)
                continue
            if (data := self._store.version(blob)) is None:
                continue  # it held a key not in use now: `sealed` names it
            make_folders(real.parent)  # in the place judged, as the write tools do: a link swapped in leads nowhere
            if (now := read_checked(real) if (kind := _kind(real)) == "file" else None) != data:
                digest = hashlib.sha256(now).hexdigest() if now is not None else kind
                try:  # as write_file writes, the file as `changed` read it (the caller kept what it said)
                    if seen.get(path_s, digest) != digest:
                        raise file_state.Changed(path_s)
                    file_state.atomic_write_bytes(real, data, checked=True, expect=kind in ("file", "deleted"), holding=now)
                except file_state.Changed:  # since: left, and said
                    self.raced.append(real)
                    continue
            restored.append(path)
        history_len = self._items[n].history_len
        del self._items[n:]
        self._save()
        self._gc()
        return history_len, restored

    def drop_all(self) -> None:
        """Forget every checkpoint and blob."""
        self._items = []
        self._save()
        self._gc()

    def _gc(self) -> None:
        """Delete blobs no remaining checkpoint refers to."""
        self._store.collect(referenced(self._items) | {c.reads for c in self._items if c.reads})
