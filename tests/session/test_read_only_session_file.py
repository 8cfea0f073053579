"""A session file the user made read-only opens as it is, with no warning about a torn last line it
does not have. Its load tried to open it for writing to heal a torn end, and whatever stopped that
said `could not set a torn last line aside (Permission denied); the file keeps it` (`-r ID -p
/history`, `/cost`) of a file that ended whole. A torn one is still said so, and left uncut."""

from __future__ import annotations

import errno
import os
from collections.abc import Iterator
from pathlib import Path

import pytest
from pydantic_ai.messages import ModelRequest, ModelResponse, TextPart, UserPromptPart

from compact_agent.session.entries import Loaded
from compact_agent.session.store import SessionStore

TORN = b'{"v": 1, "id": "torn1", "kind": "message", "message": {"parts": [{"content": "remember PELICAN'


@pytest.fixture
def read_only(monkeypatch: pytest.MonkeyPatch) -> Iterator[list[Path]]:
    """Paths put here cannot be opened for writing: file modes where they stop this user; for root,
    whom they do not stop, the refusal another user's `chmod a-w` gets."""
    paths: list[Path] = []
    if os.geteuid() != 0:
        yield paths
        for p in paths:
            p.chmod(0o600)
        return
    real_open = os.open

    def refusing(path: str | os.PathLike[str], flags: int, *args: int, **kwargs: int) -> int:
        if flags & (os.O_WRONLY | os.O_RDWR) and Path(path) in paths:
            raise PermissionError(errno.EACCES, os.strerror(errno.EACCES), str(path))
        return real_open(path, flags, *args, **kwargs)

    monkeypatch.setattr(os, "open", refusing)
    yield paths


def made_read_only(paths: list[Path], path: Path) -> None:
    path.chmod(0o400)
    paths.append(path)


def a_session(root: Path, tail: bytes = b"") -> SessionStore:
    s = SessionStore(root, "s1")
    s.append([ModelRequest(parts=[UserPromptPart("remember PELICAN")]), ModelResponse(parts=[TextPart("noted")])])
    with open(s.path, "ab") as f:
        f.write(tail)
    return s


def loaded_read_only(root: Path, paths: list[Path], tail: bytes = b"") -> tuple[Path, bytes, Loaded]:
    """A session ending in `tail`, made read-only, then loaded under its lock: its path, its bytes
    before the load, and what the load gave."""
    path = a_session(root, tail).path
    made_read_only(paths, path)
    before = path.read_bytes()
    s = SessionStore(root, "s1")
    s.lock()
    try:
        return path, before, s.load()
    finally:
        s.unlock()


def test_a_read_only_session_that_ends_whole_loads_without_a_warning(tmp_path: Path, read_only: list[Path]) -> None:
    _, _, loaded = loaded_read_only(tmp_path, read_only)
    assert len(loaded.messages) == 2
    assert loaded.warnings == []


def test_a_read_only_session_with_a_torn_line_says_so_and_keeps_it(tmp_path: Path, read_only: list[Path]) -> None:
    path, before, loaded = loaded_read_only(tmp_path, read_only, TORN)
    assert len(loaded.messages) == 2
    assert any(w.startswith("could not set a torn last line aside (Permission denied)") for w in loaded.warnings), \
        loaded.warnings
    assert path.read_bytes() == before
