"""Start-up times a user feels: `--version`, `--help`, and the REPL's prompt in a pseudo-terminal.

Prints the median of a few runs of each (seconds). Targets: --version and --help under 0.3 s,
the prompt under 1 s. The REPL builds its session (pydantic-ai, the provider's client) while the
prompt is up; "session ready" is when its toolbar stops saying `starting…` and shows the context
(no target: a line entered before then waits for it). Run: .venv/bin/python benchmarks/startup.py
"""

from __future__ import annotations

import fcntl
import os
import pty
import select
import statistics
import struct
import subprocess
import sys
import tempfile
import termios
import time
from pathlib import Path

RUNS = 5
PROMPT_READY = b"\x1b[?2004h"  # prompt_toolkit turns bracketed paste on when the prompt waits
SESSION_READY = b"context "  # the toolbar's context figure replaces `starting…`


def env(home: Path) -> dict[str, str]:
    e = {k: v for k, v in os.environ.items() if not k.endswith("_API_KEY")}
    e.update({"COMPACT_AGENT_HOME": str(home), "COMPACT_AGENT_CONFIG": str(home / "config.toml"), "TERM": "xterm"})
    return e


def command(*args: str) -> list[str]:
    return [sys.executable, "-m", "compact_agent", *args]


def timed_run(args: list[str], home: Path) -> float:
    start = time.perf_counter()
    subprocess.run(args, env=env(home), capture_output=True, check=True)
    return time.perf_counter() - start


def time_to_prompt(home: Path, cwd: Path) -> tuple[float, float]:
    """(seconds to the prompt, seconds to the session being ready)."""
    main, child = pty.openpty()
    fcntl.ioctl(child, termios.TIOCSWINSZ, struct.pack("HHHH", 40, 120, 0, 0))
    start = time.perf_counter()
    proc = subprocess.Popen(command("--model", "fake-model", "--base-url", "http://127.0.0.1:9/v1", "--api-key", "k"),
                            cwd=cwd, env=env(home), stdin=child, stdout=child, stderr=child, close_fds=True)
    os.close(child)
    seen = b""
    marks: list[float] = []
    try:
        for needle in (PROMPT_READY, SESSION_READY):
            while needle not in seen:
                if not select.select([main], [], [], 30)[0]:
                    raise RuntimeError(f"no {needle!r} within 30 s")
                chunk = os.read(main, 65536)
                seen += chunk
                for _ in range(chunk.count(b"\x1b[6n")):  # where is the cursor? (the toolbar is sized by it)
                    os.write(main, b"\x1b[10;1R")
            marks.append(time.perf_counter() - start)
        return marks[0], marks[1]
    finally:
        proc.kill()
        proc.wait()
        os.close(main)


def main() -> None:
    with tempfile.TemporaryDirectory() as tmp:
        home, cwd = Path(tmp) / "home", Path(tmp) / "project"
        cwd.mkdir()
        repl = [time_to_prompt(home, cwd) for _ in range(RUNS)]
        rows: list[tuple[str, list[float], float | None]] = [
            ("--version", [timed_run(command("--version"), home) for _ in range(RUNS)], 0.3),
            ("--help", [timed_run(command("--help"), home) for _ in range(RUNS)], 0.3),
            ("REPL prompt", [p for p, _ in repl], 1.0),
            ("session ready", [r for _, r in repl], None)]
    print(f"{'what':<14} {'median s':>9} {'min s':>7} {'target s':>9}")
    for name, times, target in rows:
        med = statistics.median(times)
        verdict = "" if target is None else ("ok" if med <= target else "SLOW")
        goal = "-" if target is None else f"{target:.1f}"
        print(f"{name:<14} {med:>9.2f} {min(times):>7.2f} {goal:>9}  {verdict}")


if __name__ == "__main__":
    main()
