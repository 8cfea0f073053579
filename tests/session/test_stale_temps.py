"""The temp files a killed writer left are removed when the session is next locked: only those our
writers make, where they make them. A copy `/rewind` kept of the user's file is never one of them,
whatever its name."""

from __future__ import annotations

import contextlib
import errno
import os
import types
from collections.abc import Callable
from pathlib import Path

import pytest
from pydantic_ai.messages import ModelRequest

from compact_agent.agent.run import rewinding
from compact_agent.agent.tools.checkpoint_store import CheckpointStore
from compact_agent.context.layers import spills
from compact_agent.context.plumbing.markers import write_private
from compact_agent.session import journal
from compact_agent.session.files import atomic_write
from compact_agent.session.store import SessionStore


def _temps(folder: Path) -> list[str]:
    return sorted(str(p.relative_to(folder)) for p in folder.rglob("*.tmp"))


def _write_all_killed(monkeypatch: pytest.MonkeyPatch, side: Path) -> None:
    """Every writer of a session's folder, each stopped before its rename with its temp file left,
    as a kill leaves it."""
    spills.store(side / "tool-results" / "call_1.txt", "the same text")  # the shared copy a link is made to

    def killed(*_args: object, **_kw: object) -> None:
        raise OSError(errno.EIO, "killed here")

    with monkeypatch.context() as m:
        m.setattr(os, "replace", killed)
        m.setattr(os, "unlink", lambda *_a, **_k: None)  # a kill cleans up nothing
        m.setattr(Path, "unlink", lambda *_a, **_k: None)
        writes: list[Callable[[], object]] = [lambda: atomic_write(side / "todos.json", b"{}"),
                  lambda: write_private(side / "notes.md", "notes", "notes"),
                  lambda: spills.store(side / "tool-results" / "call_2.txt", "the same text"),  # its temp link
                  lambda: spills.store(side / "tool-results" / "call_3.txt", "another text"),
                  lambda: CheckpointStore(side / "checkpoints").keep(b"a version"),
                  lambda: CheckpointStore(side / "checkpoints").write_list([]),
                  lambda: journal.set_aside(side, b"torn")]
        for write in writes:
            with contextlib.suppress(OSError):
                write()


def test_a_lock_removes_every_writers_temp_and_keeps_what_rewind_kept(monkeypatch: pytest.MonkeyPatch,
                                                                        tmp_path: Path) -> None:
    project = tmp_path / "project"
    (project / "sub").mkdir(parents=True)
    store = SessionStore(tmp_path / "sessions", "s1")
    store.lock()
    store.append([ModelRequest.user_text_prompt("hello")])
    edited = [project / ".env.local.tmp", project / ".cache.0a1b2c3d.tmp", project / "sub" / ".x.abcd_123.tmp"]
    for path in edited:
        path.write_text(f"HAND-EDITED {path.name}: the only copy of this text\n")
    kept = rewinding._keep(types.SimpleNamespace(store=store, cwd=project.resolve()), 0,
                           [p.resolve() for p in edited])
    assert kept is not None
    _write_all_killed(monkeypatch, store.dir)
    left = [t for t in _temps(store.dir) if not t.startswith("rewind-kept")]
    assert {Path(t).parent.as_posix() for t in left} == {".", "tool-results", "tool-results/.by-content",
                                                          "checkpoints", "checkpoints/blobs", "set-aside"}
    store.unlock()

    again = SessionStore(tmp_path / "sessions", "s1")
    again.lock()  # the next run resumes the session
    assert [t for t in _temps(store.dir) if not t.startswith("rewind-kept")] == []
    for path in edited:
        copy = kept / path.relative_to(project)
        assert copy.read_text() == f"HAND-EDITED {path.name}: the only copy of this text\n"
    again.unlock()


@pytest.mark.parametrize(("mine", "other"), [("work", "work-2"), ("a", "a.jsonl.b")])
def test_a_lock_removes_its_own_temps_beside_others_and_never_those_of_a_session_whose_id_starts_with_its_id(
        tmp_path: Path, mine: str, other: str) -> None:
    """Session ids a library user chooses may start with one another: the archive and file temps of
    `work-2`, which another process may be writing, are not those of `work`."""
    root = tmp_path / "sessions"
    (root / "compact-history").mkdir(parents=True)
    theirs = [root / "compact-history" / f".{other}-20261205-120000-000000.jsonl.0badc0de.tmp",
              root / f".{other}.jsonl.0badc0de.tmp"]
    ours = [root / "compact-history" / f".{mine}-20261205-120000-000000.jsonl.0badc0de.tmp",
            root / "compact-history" / f".{mine}-20261205-120000.jsonl.1234abcd.tmp",  # an earlier version's name
            root / f".{mine}.jsonl.0badc0de.tmp"]
    for path in theirs + ours:
        path.write_text("half a write")
    store = SessionStore(root, mine)
    store.lock()
    assert [p.name for p in theirs if p.exists()] == [p.name for p in theirs]
    assert [p.name for p in ours if p.exists()] == []
    store.unlock()
