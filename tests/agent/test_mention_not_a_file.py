"""A name in what you typed that cannot be a file's, or names something that is not a file, is no
error that stops the message. A word over 255 bytes (`/tmp/aaa….png`, `@aaa…`) made `Path.is_file`
raise ENAMETOOLONG: `-p` ended in a traceback and the REPL printed `File name too long` and sent
nothing, again on each retry. A FIFO named with `@` was said to be no such file: it is there, and
is not a regular file."""

from __future__ import annotations

import contextlib
import os
import threading
from pathlib import Path

from compact_agent.agent.run.attachments import find
from compact_agent.agent.safety.permissions import Permissions
from compact_agent.config import Settings
from tests.fakes.openai_server import FakeOpenAIServer, Reply
from tests.reliability.common import cli

LONG = "a" * 300


def lines(typed: str, cwd: Path) -> list[tuple[str, bool]]:
    found = find(typed, cwd, Permissions(cwd, "yes"), sees_images=True, max_bytes=1 << 20, settings=Settings())
    return [(a.line, a.attach) for a in found]


def test_a_name_too_long_for_a_file_is_just_words(tmp_path: Path) -> None:
    assert lines(f"look at /tmp/{LONG}.png please", tmp_path) == []  # a pasted image path that is none: a word
    assert lines(f"look at '{tmp_path}/{LONG} x.png'", tmp_path) == []
    assert lines(f"explain @{LONG}", tmp_path) == [(f"@{LONG}: no such file, not attached", False)]
    assert lines(f"explain @{LONG}/x.py", tmp_path) == [(f"@{LONG}/x.py: no such file, not attached", False)]


def test_a_fifo_named_with_at_is_said_to_be_no_regular_file(tmp_path: Path) -> None:
    os.mkfifo(tmp_path / "pipe.txt")
    os.mkfifo(tmp_path / "shot.png")
    # A guard, should a change ever open the FIFO: a writer comes and goes, and the test fails, not hangs.
    def release() -> None:
        for name in ("pipe.txt", "shot.png"):
            with contextlib.suppress(OSError):  # no reader waiting on it
                os.close(os.open(tmp_path / name, os.O_WRONLY | os.O_NONBLOCK))
    guard = threading.Timer(10, release)
    guard.start()
    try:
        said = lines("explain @pipe.txt and shot.png", tmp_path)
    finally:
        guard.cancel()
    assert said == [("@pipe.txt is not a regular file: not attached", False)]


def test_print_mode_sends_a_prompt_naming_a_name_too_long_for_a_file(tmp_path: Path) -> None:
    home, cwd = tmp_path / "home", tmp_path / "project"
    cwd.mkdir()
    with FakeOpenAIServer(lambda req: Reply.text("looked"), window=9_000) as server:
        runs = [cli(home, cwd, "-p", typed, "--model", "fake-model", "--base-url", server.base_url,
                    "--context-window", "9000", "--api-key", "k", timeout=60)
                for typed in (f"look at /tmp/{LONG}.png please", f"explain @{LONG}")]
        sent = [str(r.messages[-1].get("content")) for r in server.requests]
    assert [(r.code, r.stdout) for r in runs] == [(0, "looked\n")] * 2, runs
    assert "Traceback" not in runs[0].stderr + runs[1].stderr and "too long" not in runs[1].stderr, runs
    assert f"@{LONG}: no such file, not attached" in runs[1].stderr
    assert any(f"look at /tmp/{LONG}.png please" in s for s in sent) and any(f"explain @{LONG}" in s for s in sent)
