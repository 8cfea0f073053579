"""ReadFileState: read order, staleness detection, persistence; atomic_write_bytes."""

from __future__ import annotations

import json
import os
import stat
from pathlib import Path

from compact_agent.agent.tools.file_state import ReadFileState, atomic_write_bytes


def _touch(p: Path, text: str = "x") -> int:
    p.write_text(text)
    return p.stat().st_mtime_ns


def test_record_get_and_order(tmp_path: Path) -> None:
    a, b = tmp_path / "a.py", tmp_path / "b.py"
    state = ReadFileState()
    state.record(a, _touch(a))
    state.record(b, _touch(b), partial=True, offset=10, limit=5)
    assert state.paths() == [a.resolve(), b.resolve()]
    entry = state.get(b)
    assert entry is not None and entry.partial and entry.offset == 10 and entry.limit == 5
    state.record(a, a.stat().st_mtime_ns)  # a re-read makes it the newest
    assert state.paths() == [b.resolve(), a.resolve()]
    assert a in state and len(state) == 2


def test_lookup_by_other_spelling(tmp_path: Path, monkeypatch) -> None:
    a = tmp_path / "a.py"
    state = ReadFileState()
    state.record(a, _touch(a))
    monkeypatch.chdir(tmp_path)
    assert state.get("a.py") is not None
    assert state.get(tmp_path / "sub" / ".." / "a.py") is not None


def test_is_current_tracks_mtime_and_existence(tmp_path: Path) -> None:
    a = tmp_path / "a.py"
    state = ReadFileState()
    assert not state.is_current(a)
    state.record(a, _touch(a), partial=True)
    assert state.is_current(a)  # a partial read still allows editing
    st = a.stat()
    os.utime(a, ns=(st.st_atime_ns, st.st_mtime_ns + 1_000_000_000))
    assert state.is_current(a)  # a new mtime on the bytes read: no change
    a.write_text("y")  # the same size, changed
    os.utime(a, ns=(st.st_atime_ns, st.st_mtime_ns + 2_000_000_000))
    assert not state.is_current(a)
    state.record(a, a.stat().st_mtime_ns)
    a.unlink()
    assert not state.is_current(a)


def test_forget_and_clear(tmp_path: Path) -> None:
    a, b = tmp_path / "a", tmp_path / "b"
    state = ReadFileState()
    state.record(a, _touch(a))
    state.record(b, _touch(b))
    state.forget(a)
    assert state.paths() == [b.resolve()]
    state.clear()
    assert state.paths() == []


def test_json_round_trip_keeps_order_and_skips_garbage(tmp_path: Path) -> None:
    a, b = tmp_path / "a", tmp_path / "b"
    state = ReadFileState()
    state.record(b, _touch(b), partial=True, offset=3, limit=4)
    state.record(a, _touch(a))
    data = json.loads(json.dumps(state.to_json()))
    data["files"].append({"path": "/x"})  # no mtime: skipped
    back = ReadFileState.from_json(data)
    assert back.paths() == state.paths()
    assert back.get(b) == state.get(b)
    assert back.is_current(a)
    assert ReadFileState.from_json(None).paths() == []


def test_atomic_write_keeps_mode_or_sets_it(tmp_path: Path) -> None:
    p = tmp_path / "f.sh"
    p.write_text("old")
    p.chmod(0o755)
    atomic_write_bytes(p, b"new")
    assert p.read_bytes() == b"new"
    assert stat.S_IMODE(p.stat().st_mode) == 0o755
    q = tmp_path / "secret"
    atomic_write_bytes(q, b"s", mode=0o600)
    assert stat.S_IMODE(q.stat().st_mode) == 0o600
    assert sorted(x.name for x in tmp_path.iterdir()) == ["f.sh", "secret"]  # no temp files left
