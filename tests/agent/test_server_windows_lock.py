"""Two sessions learning windows at once (two servers, two terminals) each read `servers/windows.json`,
added their own and wrote it back: each write was atomic, but the second, made from what it read
before the first was written, dropped the first's endpoint. Now every change re-reads the file and
writes it under an flock on the lock file beside it.

The other process is played by a writer that waits for nobody but the lock: whenever the lock is
free it writes at once (as a process that read and wrote between this one's read and write would),
and when the lock is held it writes after this process let go, as `remember` does."""

from __future__ import annotations

import fcntl
import json
import os
from pathlib import Path

import pytest

from compact_agent.agent.run import server_windows

A, B = "http://127.0.0.1:8080/v1", "http://127.0.0.1:11434/v1"


def test_a_window_another_process_keeps_meanwhile_is_not_overwritten(tmp_path: Path,
                                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    home = tmp_path / "h"
    path = server_windows.path_in(home)
    read = server_windows._read
    waiting: list[str] = []

    def other_process_writes() -> None:
        """B's whole read-modify-write, now if the lock is free, else once it is."""
        path.parent.mkdir(parents=True, exist_ok=True)
        fd = os.open(path.with_name(path.name + ".lock"), os.O_RDWR | os.O_CREAT, 0o600)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            waiting.append("B")  # A holds the lock between its read and its write
            return
        finally:
            os.close(fd)
        data = json.loads(path.read_text()) if path.exists() else {"windows": {}}
        data["windows"].setdefault(B, {})["llama3"] = 4_096  # as an older version wrote it: read the same
        path.write_text(json.dumps(data))

    def a_reads(p: Path) -> dict[str, dict[str, server_windows.Kept]]:
        seen = read(p)
        monkeypatch.setattr(server_windows, "_read", read)
        other_process_writes()  # between A's read and A's write
        return seen

    monkeypatch.setattr(server_windows, "_read", a_reads)
    server_windows.remember(home, A, "local", 8_000)
    if waiting:  # B waited for the lock: it goes now
        server_windows.remember(home, B, "llama3", 4_096)

    assert server_windows.remembered(home, A, "local") == 8_000
    assert server_windows.remembered(home, B, "llama3") == 4_096


def test_changes_in_turn_from_one_stale_view_keep_each_others_windows(tmp_path: Path) -> None:
    """Two sessions that started before either learned anything each keep their own window."""
    home = tmp_path / "h"
    assert server_windows.remembered(home, A, "local") is None  # both start from an empty file
    assert server_windows.remembered(home, B, "llama3") is None
    server_windows.remember(home, A, "local", 8_000)
    server_windows.remember(home, B, "llama3", 4_096)
    server_windows.remember(home, A, "local", 6_000)  # a later refusal, smaller
    assert server_windows.remembered(home, A, "local") == 6_000
    assert server_windows.remembered(home, B, "llama3") == 4_096
    assert (server_windows.path_in(home).parent / "windows.json.lock").exists()


def test_a_temp_a_killed_writer_left_goes_with_the_next_change_and_nothing_else_does(tmp_path: Path) -> None:
    """A writer killed between its temp file and the rename left `.windows.json.<hex>.tmp` in the
    home's servers folder, shared by every session, where nothing removed it. A change holds the lock
    every writer takes, so a temp there then is no live writer's: it goes. Other files stay."""
    home = tmp_path / "h"
    path = server_windows.path_in(home)
    path.parent.mkdir(parents=True)
    left = path.parent / f".{path.name}.0a1b2c3d.tmp"
    left.write_text("{half")
    other = path.parent / ".notes.txt.0a1b2c3d.tmp"
    other.write_text("not ours")
    server_windows.remember(home, A, "local", 8_000)
    assert not left.exists() and other.exists()
    assert server_windows.remembered(home, A, "local") == 8_000
