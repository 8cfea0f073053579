"""The test process's one zygote (tests/reliability/zygote.py), and `compact-agent` runs forked
from it: the real `main()` in a process of its own, stdin at end of file, stdout and stderr files,
without the second or more of importing pydantic-ai a fresh interpreter spends on every run.

Fixtures get the zygote from tests/conftest.py (`zygote`); helpers that are plain functions (the
analyzer's `cli()`) call `shared_zygote()`. Both are the same process, closed at the session's end.
Under `pytest -n N` the process that starts the workers starts one `zygote.py --serve` for them all
(`serve_workers`), and each worker's zygote is forked from it: the imports are done once a run,
not once a worker (4-5 s of CPU each)."""

from __future__ import annotations

import contextlib
import os
import queue
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

from tests.reliability.harness import REPO, Zygote

SERVED = "TESTS_ZYGOTE_SOCKET"  # the socket of the run's `zygote.py --serve`, for the workers
# Out of the environment the tests and the runs they start see, as before (a worker imports this first).
_served = os.environ.pop(SERVED, None)
_shared: Zygote | None = None
_server: tuple[subprocess.Popen[bytes], str] | None = None


def shared_zygote() -> Zygote:
    """Started on first use: a test process that never runs the CLI never starts it."""
    global _shared
    if _shared is None:
        _shared = Zygote(_served)
    return _shared


def close_shared_zygote() -> None:
    global _shared, _server
    if _shared is not None:
        _shared.close()
        _shared = None
    if _server is not None:  # the workers are gone, and their zygotes with them
        server, folder = _server
        _server = None
        server.stdin.close()  # type: ignore[union-attr]
        try:  # it ends once its zygotes have; in a run that never asked for one, it may be importing still
            server.wait(timeout=2)
        except subprocess.TimeoutExpired:
            server.terminate()
            server.wait(timeout=10)
        shutil.rmtree(folder, ignore_errors=True)


def serve_workers() -> None:
    """In the process that starts the workers, before it does: one `zygote.py --serve` on a socket
    it listens on already (a worker may connect before it has imported everything), named in the
    environment the workers inherit."""
    global _server
    folder = tempfile.mkdtemp(prefix="compact-agent-zygote-")
    path = os.path.join(folder, "socket")
    listening = socket.socket(socket.AF_UNIX)
    listening.bind(path)
    listening.listen(64)
    env = {**os.environ, "PYTHONPATH": f"{REPO}{os.pathsep}{REPO / 'src'}"}
    server = subprocess.Popen([sys.executable, "-m", "tests.reliability.zygote", "--serve", str(listening.fileno())],
                              cwd=REPO, env=env, stdin=subprocess.PIPE, pass_fds=[listening.fileno()])
    listening.close()
    _server = (server, folder)
    os.environ[SERVED] = path


def run_forked(args: list[str], env: dict[str, str], cwd: Path, timeout: float,
               input: bytes | None = None) -> tuple[int, bytes, bytes]:
    """`compact-agent ARGS` with exactly `env` in `cwd`: its exit code, stdout and stderr. `input`
    comes through a pipe, as a shell's `|` gives it; without it stdin is at end of file."""
    out = Path(tempfile.mkdtemp(prefix="compact-agent-cli-"))  # outside the test's own folders
    try:
        extra: dict[str, str] = {}
        if input is not None:
            extra["stdin"] = str(out / "stdin")
            os.mkfifo(extra["stdin"])
            threading.Thread(target=_write_fifo, args=(extra["stdin"], input), daemon=True).start()
        child = shared_zygote().spawn("cli", args, env, cwd, out / "stdout", out / "stderr", **extra)
        code = child.wait(timeout)
        return code, child.out.read_bytes(), child.err.read_bytes()
    finally:
        shutil.rmtree(out, ignore_errors=True)


def _write_fifo(path: str, data: bytes) -> None:
    """All of `data` into the named pipe, then its end; a reader that leaves early ends it too."""
    with contextlib.suppress(BrokenPipeError), open(path, "wb") as pipe:  # open waits for the child's end
        pipe.write(data)  # a BrokenPipeError: the program stopped reading, as a shell's writer would see


class Forked:
    """A `compact-agent` forked from the zygote with a terminal as its stdin, stdout and stderr, in
    a session of its own: what `subprocess.Popen([... cli ...], stdin=tty, stdout=tty, stderr=tty,
    start_new_session=True)` starts, without the interpreter's start-up. The Popen calls the
    terminal tests make: `pid`, `poll`, `wait`, `kill`, `send_signal`."""

    def __init__(self, args: list[str], env: dict[str, str], cwd: Path, tty: str) -> None:
        self._out = Path(tempfile.mkdtemp(prefix="compact-agent-tty-"))
        self._child = shared_zygote().spawn("cli", args, env, cwd, self._out / "stdout", self._out / "stderr",
                                            tty=tty)
        self.pid = self._child.pid
        # Back once the child holds the terminal: a terminal whose other side nobody holds reads as
        # closed, and the caller closes its own copy as soon as this returns.
        deadline = time.monotonic() + 60
        while self.poll() is None and time.monotonic() < deadline:
            with contextlib.suppress(OSError):  # not there yet, or the child gone (poll says)
                if os.readlink(f"/proc/{self.pid}/fd/2") == tty:
                    break
            time.sleep(0.002)

    @property
    def returncode(self) -> int | None:
        return self._child.code

    def poll(self) -> int | None:
        while self._child.code is None:
            try:
                self._child.next_event(0)
            except queue.Empty:
                break
        return self._child.code

    def wait(self, timeout: float | None = None) -> int:
        try:
            code = self._child.wait(60 if timeout is None else timeout)
        except queue.Empty:
            raise subprocess.TimeoutExpired("compact-agent", timeout or 60) from None
        shutil.rmtree(self._out, ignore_errors=True)
        return code

    def kill(self) -> None:
        self.send_signal(signal.SIGKILL)

    def send_signal(self, sig: int) -> None:
        if self._child.code is None:
            self._child.zygote.signal(self._child.token, signal.Signals(sig).name.removeprefix("SIG"))


class Piped(Forked):
    """A `compact-agent` forked from the zygote with stdin at end of file and stdout and stderr
    pipes the caller reads (`stdout`, `stderr`): what `subprocess.Popen([... cli ...],
    stdin=DEVNULL, stdout=PIPE, stderr=PIPE)` starts, without the interpreter's start-up, for the
    tests of a reader that leaves or of a signal. The pipes are named ones, their read ends opened
    first (the zygote's open for writing then does not wait); the zygote ignores SIGPIPE as a fresh
    interpreter does. Beside Forked's calls, `communicate`."""

    def __init__(self, args: list[str], env: dict[str, str], cwd: Path) -> None:  # noqa: D107 - no terminal
        self._out = Path(tempfile.mkdtemp(prefix="compact-agent-pipes-"))
        ends = []
        for name in ("stdout", "stderr"):
            os.mkfifo(self._out / name)
            end = os.open(self._out / name, os.O_RDONLY | os.O_NONBLOCK)
            os.set_blocking(end, True)
            ends.append(os.fdopen(end, "rb"))
        self.stdout, self.stderr = ends
        self._child = shared_zygote().spawn("cli", args, env, cwd, self._out / "stdout", self._out / "stderr")
        self.pid = self._child.pid

    def communicate(self, timeout: float | None = None) -> tuple[bytes, bytes]:
        """Both pipes read to their end (b"" for one the caller closed), then the exit, as Popen's."""
        got: dict[int, bytes] = {}

        def drain(i: int, pipe: Any) -> None:
            got[i] = b"" if pipe.closed else pipe.read()

        readers = [threading.Thread(target=drain, args=(i, p), daemon=True) for i, p in enumerate((self.stdout, self.stderr))]
        for r in readers:
            r.start()
        deadline = time.monotonic() + (60 if timeout is None else timeout)
        for r in readers:
            r.join(max(0.0, deadline - time.monotonic()))
            if r.is_alive():
                raise subprocess.TimeoutExpired("compact-agent", timeout or 60)
        self.wait(max(0.1, deadline - time.monotonic()))
        for pipe in (self.stdout, self.stderr):
            pipe.close()
        return got[0], got[1]
