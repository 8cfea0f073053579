"""Session files: append-only JSONL, archived before any rewrite, rewritten atomically.

One entry per line: `{"v": 1, "id", "parent", "time", "kind", ...}` where kind is `message`
(with the message serialised by pydantic-ai's `ModelMessagesTypeAdapter`), `boundary` (a
compaction: trigger, strategy, tokens before/after, archive path) or `meta` (the command-line options
the session runs with, remembered.py; a rewrite carries them over). Appends are fsynced;
a rewrite goes to a temp file that is fsynced and renamed, and only after the full transcript was
copied to `compact-history/`. So at every instant — a SIGKILL included — each message ever saved
is in the session file or in an archive, and the session file is either the old or the new one.

Loading never fails on content. Torn, binary, duplicated or unknown lines are skipped, lines out of
order are put back in the order their parent ids say, lines from a newer format are read as far as
they are understood, and a history that would not be a valid provider conversation (a tool call
whose result was lost in a crash) is repaired the way pydantic-ai repairs it. Each kind of problem
becomes one warning. A last line torn by a crash is cut off only after its bytes were set aside in
the session's `set-aside/` folder (journal.py); the resumed session says where. Unreadable lines
inside the file are set aside there too, and the file rewritten without them (unreadable.py): the
next load is silent. `load_messages()`, where a program gets no warning, names the lines it skipped
inside the file in `warnings` and on the `compact_agent.session` logger (skipped_lines.py).

A lock file stops a second process from interleaving writes into the same session. Write failures
(a full disk, a read-only folder) raise `SessionWriteError`, one line naming the file; nothing that
was saved before is touched by a failed write.
"""
from __future__ import annotations

import contextlib
import uuid
from collections.abc import Callable, Sequence
from datetime import datetime
from pathlib import Path
from typing import Any

from pydantic_ai.messages import ModelMessage

from .. import crashpoints, secrets, stop_signals
from . import files, journal, last_run, listing, locks, remembered, skipped_lines, unreadable, unused
from .archives import next_archive, session_archives
from .entries import FORMAT_VERSION, Boundary, Loaded, _dump_message, now_iso, saves_a_reply, utf8_safe
from .event_log import EventLog
from .files import (
    SessionError,
    SessionLocked,
    SessionWriteError,
    _write_error,
    atomic_write,
    ensure_private_dir,
    ensure_private_file,
    list_sessions,
    new_session_id,
    project_slug,
    remove_stale_temps,
)
from .loading import load_session_file
from .not_a_session import refuse_if_not_a_session
from .prompt_entry import prompt_text, users_request

# The store's own names, and what the agent and its UI import from here (entries.py, files.py, loading.py).
__all__ = [
    "FORMAT_VERSION", "Boundary", "Loaded", "SessionError", "SessionLocked", "SessionStore", "SessionWriteError",
    "atomic_write", "ensure_private_dir", "ensure_private_file", "list_sessions", "load_session_file",
    "new_session_id", "now_iso", "project_slug", "remove_stale_temps", "session_archives", "utf8_safe",
]


class SessionStore:
    """The persisted truth of one conversation."""

    def __init__(self, root: Path | str, session_id: str, clock: Callable[[], str] = now_iso) -> None:
        self.session_id = session_id = files.plain_id(session_id)  # names files in the folder, never a path out
        self.root = root = ensure_private_dir(Path(root))  # a folder's name as text too
        self.path = root / f"{session_id}.jsonl"
        self.dir = root / session_id  # side files: tool results, notes, collapse log, events
        self._clock = clock
        self.event_log = EventLog(self.dir, clock)  # what the layers and the provider did (event_log.py)
        self._last_id: str | None = None
        self._lock_fd: int | None = None
        self._started = False  # no file when this run locked it: judged at close (unused.nothing_to_resume)
        self._prompt: tuple[str, str] | None = None  # (entry id, text) of a typed message not yet sent
        self._kept = False  # …whose request could not be saved: its entry is the message (prompt_entry.py)
        self.set_aside: list[Path] = []  #: where torn lines were set aside (journal.py): told on resume
        self._told = 0  # how many of them a load has told of
        self.warnings: list[str] = []  #: lines the latest load_messages() skipped inside the file (skipped_lines.py)
        self._skipped: list[tuple[int, str]] = []  # the latest load's: (line number, why), before set aside
        #: The command-line settings to save with the next write (remembered.py), if any; with
        #: `_until_reply`, with the first write that holds a reply of the model (see `take_options`).
        self._options: dict[str, Any] | None = None
        self._until_reply = False
        self._loaded: list[ModelMessage] | None = None  # the latest load's messages, until this run writes some
        self._unsaved: ModelMessage | None = None  # the message the latest load found answered, its answer not saved
        self._calls_unsaved: tuple[ModelMessage, list[str]] | None = None  # …or found with tool calls that ran, not saved
        self._signalled: tuple[ModelMessage, str] | None = None  # …or its request out when a signal ended the run
        self.next_extra: dict[str, Any] = {}  # the rewrites' records carry it in `extra` while set (model_switch.py)
        #: Told of each rewrite once it is on disk (its boundary, the new history): the checkpoints follow it.
        self.on_rewrite: Callable[[dict[str, Any], Sequence[ModelMessage]], None] | None = None

    # -- paths ---------------------------------------------------------------------------
    @property
    def archive_dir(self) -> Path:
        return self.root / "compact-history"

    def side_dir(self, name: str) -> Path:
        return ensure_private_dir(self.dir / name)

    # -- locking -------------------------------------------------------------------------
    def lock(self, *, cli: bool = False) -> None:
        """Take an exclusive lock; a second process on the same session gets SessionLocked, whose words
        name the terminal agent's ways out (its REPL's /exit, --continue/--resume) only where `cli`.
        Holding it, no one else writes this session's files, so temp files a killed process left
        behind (ours only: other sessions share the project folder) are removed here. A file under
        the session's name that is no session is refused first (NotASessionFile): nothing is made for it.
        The lock itself is locks.py's (`take`).
        """
        refuse_if_not_a_session(self.path)
        self._lock_fd, self._started = locks.take(self.dir, self.session_id, self.root, cli=cli), not self.path.exists()
        self.clean_stale_temps()
        if (early := journal.claim_early(self.path)) is not None:  # typed while the session was being built
            self._prompt = (early[0], early[1])
            self._last_id = early[0]
            if early[2] is not None:
                self.set_aside.append(early[2])
        self.take_options(early is not None)

    def take_options(self, typed_early: bool = False) -> None:
        """The command-line settings this run keeps in this session (remembered.py), taken when the
        store is locked and saved with its next write (a run refused when its session opens — a
        window too small — leaves none): those of a session it starts (also one its early-saved
        prompt made), or of the session it resumed when they changed. Another session keeps its own;
        a session `-r`'s list picks or the REPL's `/resume` switches to is opened once, after the run
        was told what that session runs with (ui/session_picker.py, ui/resume_switch.py).

        New options of a resumed session (`-c --model X`) are written only with the first reply of
        the model: a run that never reaches it (an endpoint that is down, a bad key) leaves the
        session remembering what worked. A session this run starts has nothing else to remember,
        and keeps them at once (with its early-saved prompt, journal.py, when that wrote them)."""
        run = remembered.this_run()
        self._options, self._until_reply = None, False
        if run is None or not run.options:
            return
        resumed = run.resumed is not None and run.resumed.resolve() == self.path.resolve()
        started = not self.path.exists() or (typed_early and not resumed)
        if started:
            if remembered.options_of(self.path) != run.options:  # else the early save wrote them
                self._options = dict(run.options)
        elif resumed and run.changed:
            self._options, self._until_reply = dict(run.options), True

    def options(self) -> dict[str, Any]:
        """The options this session remembers, those not written yet included."""
        return dict(self._options) if self._options is not None else remembered.options_of(self.path)

    def keep_options(self, options: dict[str, Any]) -> None:
        """Remember `options` from now on (a `/model` switch): written at once when the session has
        a file, else with its first write (a session that saved nothing still leaves no file). A
        write that fails is tried again with the next one."""
        self._options, self._until_reply = dict(options), False
        if not self.path.exists() or self._lock_fd is None:
            return
        entry = self._entries([("meta", {"meta": {remembered.KEY: self._options}})], self._last_id)
        self._options = None
        try:
            self._append_lines(entry)
        except OSError:
            self._options = dict(options)

    def unlock(self) -> None:
        if self._lock_fd is not None:
            locks.release(self._lock_fd)
            self._lock_fd = None

    def remove_if_unused(self) -> None:
        """After `unlock`: a session that saved nothing, or nothing to resume, leaves nothing (unused.py)."""
        if self._lock_fd is None:
            unused.remove_if_unused(self.root, self.path, self.dir, self.event_log.path, started=self._started)

    def keeps_nothing(self) -> bool:
        """Whether closing removes this run's session, which holds nothing to resume (unused.py)."""
        return self._started and self.path.exists() and unused.nothing_to_resume(self.path)

    def clean_stale_temps(self) -> int:
        """Remove temp files of this session left by a crash: they are never read, only clutter."""
        return unused.clean_stale_temps(self.root, self.session_id, self.dir)

    # -- writing -------------------------------------------------------------------------
    def _entries(self, kind_payloads: Sequence[tuple[str, dict[str, Any]]], parent: str | None
                 ) -> list[dict[str, Any]]:
        """New entries chained by parent id; `_last_id` only moves once they are on disk."""
        out: list[dict[str, Any]] = []
        for kind, payload in kind_payloads:
            eid = uuid.uuid4().hex[:12]
            out.append({"v": FORMAT_VERSION, "id": eid, "parent": parent, "time": self._clock(), "kind": kind,
                        **payload})
            parent = eid
        return out

    @stop_signals.writing  # a signal's save waits for it (and writes after it)
    def _append_lines(self, entries: Sequence[dict[str, Any]]) -> None:
        if not entries:
            return
        options = self._options if not self._until_reply or any(map(saves_a_reply, entries)) else None
        if options is not None:  # the settings this run keeps, before what it writes first
            [meta] = self._entries([("meta", {"meta": {remembered.KEY: options}})], entries[0]["parent"])
            entries[0]["parent"] = meta["id"]
            entries = [meta, *entries]
        try:
            kept = journal.append(self.path, journal.encode(entries), self.dir)
        except OSError as e:
            # Part of the batch may be on disk; the next entry names no parent rather than a wrong one.
            self._last_id = None
            raise _write_error("the session file", self.path, e) from e
        if kept is not None:
            self.set_aside.append(kept)
        self._told = len(self.set_aside)  # cut off by this run's writes: no news of a last run for a later load
        crashpoints.hit("append.done")
        self._last_id = entries[-1]["id"]
        if options is not None:
            self._options, self._until_reply = None, False

    def append(self, messages: Sequence[ModelMessage]) -> None:
        self._loaded = None
        entries = self._entries([("message", {"message": _dump_message(m)}) for m in messages], self._last_id)
        carrier = None
        if self._prompt is not None:  # the request that takes the saved typed message to the model names it
            carrier = next((e for e, m in zip(entries, messages, strict=True) if users_request(m)), None)
            if carrier is not None:
                carrier["prompt"] = self._prompt[0]
        try:
            self._append_lines(entries)
        except OSError:
            if carrier is not None:  # the typed message's entry stays the message (prompt_entry.py)
                self._kept = True
            raise
        if carrier is not None:
            self._prompt = None

    def save_prompt(self, text: str) -> None:
        """Save a message the user typed, the moment it is entered (fsynced): a kill before its turn
        reaches the model loses nothing (journal.py). The request that carries it names it."""
        self.settle_prompt()
        entries = self._entries([("prompt", {"prompt": {"text": text}})], self._last_id)
        self._append_lines(entries)
        self._prompt = (entries[0]["id"], text)

    def settle_prompt(self) -> None:
        """After a turn: a typed message that never went into the history (the turn was interrupted,
        or failed, before its request) is marked unsent, so a reload has the history this run had."""
        if self._prompt is None or self._kept:  # …but not one whose request could not be saved
            self._prompt, self._kept = None, False
            return
        self._append_lines(self._entries([("prompt", {"prompt": {"unsent": self._prompt[0]}})], self._last_id))
        self._prompt = None

    def append_meta(self, **meta: Any) -> None:
        self._append_lines(self._entries([("meta", {"meta": meta})], self._last_id))

    def note_stopped(self) -> None:
        """Mark that the user stopped the turn: a later load says so plainly (last_run.py)."""
        self.append_meta(**{last_run.STOPPED: True})

    def note_limit_stop(self, limit: int) -> None:
        """Mark that the turn's limit of `limit` model requests stopped it (last_run.py)."""
        self.append_meta(**{last_run.AT_LIMIT: limit})

    def note_error(self, cause: str) -> None:
        """Mark that the turn ended on an error, `cause` in a few words (last_run.ENDED_ON_ERROR), redacted
        as the error's line is: a key or a URL's password in it is not saved."""
        self.append_meta(**{last_run.ENDED_ON_ERROR: secrets.hide_url_passwords(secrets.redact(cause))})

    @stop_signals.writing
    def archive(self, stamp: datetime | None = None) -> Path:
        """Copy the full transcript aside before a compaction rewrites it.

        The copy is fsynced and never overwrites an earlier archive; its name sorts after every
        earlier archive of the session (archives.py). A torn last line is copied too. If it cannot
        be written this raises (an OSError) and the caller must not rewrite the session.
        """
        try:
            ensure_private_dir(self.archive_dir)
            dest = next_archive(self.archive_dir, self.session_id, stamp or datetime.now())
            data = self.path.read_bytes() if self.path.exists() else b""
            atomic_write(dest, data, point="archive")
        except OSError as e:  # the compactor says the rest: "could not archive …; not rewritten"
            err = SessionWriteError(f"{e.strerror or e} writing {self.archive_dir}")
            err.errno = e.errno
            raise err from e
        return dest

    def archives(self) -> list[Path]:
        """This session's archives, oldest first (the names of every version)."""
        return session_archives(self.archive_dir, self.session_id)

    @stop_signals.writing
    def rewrite(self, boundary: Boundary | dict[str, Any], messages: Sequence[ModelMessage], *,
                start_of: Path | None = None) -> None:
        """Replace the session with a boundary entry plus the new history (atomically).

        Callers archive first (see `archive`); on failure the old file stays as it was. `start_of`:
        the session file (an archive) whose conversation `messages` begin, when not this one."""
        b, self._loaded = boundary if isinstance(boundary, dict) else boundary.__dict__, None
        if self.next_extra:  # the window a switch compacted for (model_switch.py), saved with its record
            b = {**b, "extra": {**(b.get("extra") or {}), **self.next_extra}}
        if not b.get("time"):  # a rewind's record has none: a resume measures the size from when it was made
            b = {**b, "time": self._clock()}
        # What a listing says of the session outlives it too: its first prompt, its messages so far.
        b = {**b, listing.KEY: listing.carried(self.path, str(b.get("trigger", "")), listing.counted(messages),
                                                 start_of)}
        meta = remembered.read_meta(self.path)  # the session's settings outlive the rewrite
        for mark in (last_run.STOPPED, last_run.AT_LIMIT, last_run.SIGNALLED, last_run.ENDED_ON_ERROR):  # of where the old history was
            meta.pop(mark, None)
        if self._options is not None and not self._until_reply:
            meta[remembered.KEY] = self._options
        entries = self._entries([("boundary", {"boundary": b}), *([("meta", {"meta": meta})] if meta else []),
                                 *(("message", {"message": _dump_message(m)}) for m in messages)], None)
        pending = self._prompt
        if pending is not None and not any(users_request(m) and prompt_text(m) == pending[1] for m in messages):
            # A typed message not yet sent stays saved, after the new history (it has no place in it yet).
            entries += self._entries([("prompt", {"prompt": {"text": pending[1]}})], entries[-1]["id"])
        try:
            if (torn := journal.keep_torn_tail(self.path, self.dir)) is not None:
                self.set_aside.append(torn)
            atomic_write(self.path, journal.encode(entries), point="rewrite")
        except OSError as e:
            raise _write_error("the session file", self.path, e) from e
        self._last_id = entries[-1]["id"]
        if not self._until_reply:
            self._options = None
        if pending is not None:
            self._prompt = (entries[-1]["id"], pending[1]) if entries[-1]["kind"] == "prompt" else None
        if self.on_rewrite is not None:
            self.on_rewrite(b, messages)

    # -- reading -------------------------------------------------------------------------
    def load(self) -> Loaded:
        """The session as saved. Holding the lock, a torn last line is first set aside and cut off
        (journal.py), and so are unreadable lines inside the file (unreadable.py): the user is told
        where their bytes are, once."""
        notes: list[str] = []
        if self._lock_fd is not None and self.path.exists():
            try:
                kept = journal.heal_file(self.path, self.dir)
            except OSError as e:  # read-only: the load skips the torn line and the file keeps it
                notes.append(f"could not set a torn last line aside ({e.strerror or e}); the file keeps it")
            else:
                if kept is not None:
                    self.set_aside.append(kept)
        own = self._prompt[0] if self._prompt is not None and not self._kept else None
        loaded = load_session_file(self.path, on_last_id=self._set_last, own_prompt=own)
        self._skipped = skipped_lines.inside(self.path) if loaded.unreadable else []  # before set aside
        if self._lock_fd is not None and loaded.unreadable and loaded.read:  # rare: read again once set aside
            with contextlib.suppress(OSError):  # read-only: the load skips them and says so, as before
                if (moved := unreadable.set_aside_unreadable(self.path, self.dir)) is not None:
                    notes.append(moved)
                    loaded = load_session_file(self.path, on_last_id=self._set_last, own_prompt=own)
        for kept in self.set_aside[self._told:]:  # found now, or by this run's first write (journal.py)
            if not loaded.read and loaded.warnings and not journal.torn_by_a_run(kept):  # one line: no session file
                loaded.warnings[-1] += f"; {journal.moved_note(kept)}"
            else:
                notes.append(journal.set_aside_note(self.path.name, kept, loaded.read))
        self._told = len(self.set_aside)
        loaded.warnings += notes
        self._loaded = list(loaded.messages)
        self._unsaved = loaded.messages[-1] if loaded.answer_not_saved and loaded.messages else None
        self._calls_unsaved = (loaded.messages[-1], loaded.calls_not_saved) \
            if loaded.calls_not_saved and loaded.messages else None
        self._signalled = (loaded.messages[-1], loaded.signalled) if loaded.signalled and loaded.messages else None
        return loaded

    def answer_not_saved(self, messages: Sequence[ModelMessage]) -> bool:
        """Whether `messages` end at the user's message the file marks as answered by the model, the
        answer not saved (a full disk: last_run.ANSWER_NOT_SAVED), as the latest load found it."""
        return bool(messages) and self._unsaved is not None and messages[-1] == self._unsaved

    def calls_not_saved(self, messages: Sequence[ModelMessage]) -> list[str]:
        """The tools of the model's calls that ran for the user's message `messages` end at, and that
        the file marks as not saved with their results (last_run.CALLS_NOT_SAVED); none otherwise."""
        found = self._calls_unsaved
        return list(found[1]) if found is not None and messages and messages[-1] == found[0] else []

    def signalled(self, messages: Sequence[ModelMessage]) -> str:
        """The signal that ended a run while the request `messages` end at was out, as the mark the
        file holds after it says (last_run.SIGNALLED) and the latest load found it; '' otherwise."""
        found = self._signalled
        return found[1] if found is not None and messages and messages[-1] == found[0] else ""

    def load_messages(self) -> list[ModelMessage]:
        """The history as saved: asked by a context manager not yet told what the file holds (a process's first
        turn), which rewrites the file when the conversation no longer begins with it; the latest load's while this
        run wrote none (megabytes are not read twice). Lines skipped inside the file: in `warnings`, and logged."""
        if self._loaded is not None:
            return list(self._loaded)
        loaded = self.load()
        self.warnings = skipped_lines.told(self.path, self._skipped, loaded.warnings)
        return loaded.messages

    def prompt_pending(self) -> bool:
        """Whether a typed message saved with `save_prompt` has not gone into the history yet."""
        return self._prompt is not None

    def _set_last(self, eid: str | None) -> None:
        self._last_id = eid
