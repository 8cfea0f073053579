"""The real `compact-agent` REPL in a pseudo-terminal of a given size, against the fake provider:
what a user sees (bytes as the terminal gets them) and keys as a user presses them."""

from __future__ import annotations

import fcntl
import os
import pty
import select
import struct
import subprocess
import sys
import termios
import time
from pathlib import Path

from tests.forked_cli import Forked

REPO = Path(__file__).resolve().parents[2]
PROMPT_READY = b"\x1b[?2004h"  # prompt_toolkit switches bracketed paste on when the prompt waits


class Terminal:
    """One REPL process on a pty; `seen` holds every byte it wrote."""

    def __init__(self, tmp: Path, base_url: str, *args: str, cols: int = 160, rows: int = 50,
                 env: dict[str, str] | None = None, fresh: bool = False) -> None:
        """Forked from the tests' pre-imported zygote (tests/forked_cli.py), or with `fresh` a new
        interpreter: for what happens while the program starts (its imports take a second or more)."""
        self.cwd = tmp / "project"
        self.cwd.mkdir(exist_ok=True)
        home = tmp / "home"
        full = {k: v for k, v in os.environ.items() if not k.endswith("_API_KEY")}
        full.update({"COMPACT_AGENT_HOME": str(home), "PYTHONPATH": str(REPO / "src"), "TERM": "xterm",
                     "COMPACT_AGENT_CONFIG": str(home / "config.toml"),
                     "COLUMNS": str(cols), "LINES": str(rows)})
        full.update(env or {})
        self.main, child = pty.openpty()
        fcntl.ioctl(child, termios.TIOCSWINSZ, struct.pack("HHHH", rows, cols, 0, 0))
        argv = ["--model", "fake-model", "--base-url", base_url, "--api-key", "k", *args]
        self.proc: subprocess.Popen[bytes] | Forked
        if fresh:
            self.proc = subprocess.Popen([sys.executable, "-m", "compact_agent.cli", *argv], cwd=self.cwd, env=full,
                                         stdin=child, stdout=child, stderr=child, close_fds=True,
                                         start_new_session=True)
        else:
            self.proc = Forked(argv, full, self.cwd, os.ttyname(child))
        os.close(child)
        self.seen = bytearray()

    def read_until(self, needle: bytes | str, after: int = 0, timeout: float = 60) -> int:
        """Read until `needle` appears at or after offset `after`; its offset (AssertionError if never)."""
        if isinstance(needle, str):
            needle = needle.encode()
        deadline = time.monotonic() + timeout
        after = max(0, after)
        while (at := self.seen.find(needle, after)) < 0:
            left = deadline - time.monotonic()
            if left <= 0 or not self._read(left):
                raise AssertionError(f"{needle!r} never appeared; the terminal showed:\n{self.text()[-3000:]}")
        return at

    def _read(self, timeout: float) -> bool:
        ready, _, _ = select.select([self.main], [], [], timeout)
        if not ready:
            return True
        try:
            chunk = os.read(self.main, 65536)
        except OSError:
            return False
        self.seen += chunk
        for _ in range(chunk.count(b"\x1b[6n")):  # where is the cursor? (prompt_toolkit sizes its toolbar by it)
            os.write(self.main, b"\x1b[10;1R")
        return bool(chunk)

    def wait_echo_off(self, timeout: float = 30) -> None:
        """Until the program turns the terminal's echo off (the main side reports the other side's modes)."""
        deadline = time.monotonic() + timeout
        while termios.tcgetattr(self.main)[3] & termios.ECHO:
            if time.monotonic() > deadline:
                raise AssertionError("the terminal's echo was never turned off")
            self._read(0.005)

    def prompt(self, after: int = 0) -> int:
        """Wait until the input prompt is up (after offset `after`); the offset after it."""
        return self.read_until(PROMPT_READY, after) + len(PROMPT_READY)

    def type(self, keys: str | bytes) -> int:
        """Press `keys`; the offset of the output that follows."""
        os.write(self.main, keys.encode() if isinstance(keys, str) else keys)
        return len(self.seen)

    def text(self, start: int = 0, end: int | None = None) -> str:
        return bytes(self.seen[start:end]).decode(errors="replace")

    def drain(self) -> None:
        """Read what is still waiting in the terminal (a program that has exited leaves its last
        output there until it is read)."""
        while select.select([self.main], [], [], 0)[0] and self._read(0.05):
            continue

    def finish(self, timeout: float = 60) -> int:
        """Ctrl-D at the prompt; the exit code (the rest of the output read)."""
        self.type("\x04")
        deadline = time.monotonic() + timeout
        try:
            # Read until it exits, quiet spells included: a loaded machine may take seconds to save
            # and close after the last output (the loop stopped at the first 0.2 s without output,
            # then gave the exit one second).
            while self.proc.poll() is None and time.monotonic() < deadline:
                if not self._read(0.2):  # the terminal closed: the process is on its way out
                    time.sleep(0.05)
            self.drain()  # what it printed last
            return self.proc.wait(max(1.0, deadline - time.monotonic()))
        finally:
            self.close()

    def close(self) -> None:
        if self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait(10)
        try:
            os.close(self.main)
        except OSError:
            pass


def one_session(tmp: Path, base_url: str, typed: str) -> None:
    """A session of one prompt, `typed`, answered and left as a user leaves (Ctrl-D, exit 0): what
    `-r` and `/resume` then list."""
    term = Terminal(tmp, base_url)
    try:
        at = term.prompt(term.read_until("/help for commands"))
        term.type(typed + "\r")
        term.prompt(term.read_until("ANSWERED", at))
        assert term.finish() == 0
    finally:
        term.close()
