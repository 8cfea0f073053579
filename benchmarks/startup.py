"""Start-up times a user feels: `--version`, `--help`, and the REPL's prompt in a pseudo-terminal.

Prints the median of a few runs of each (seconds). Targets: --version and --help under 0.3 s,
the prompt under 1 s. Run: .venv/bin/python benchmarks/startup.py
"""

from __future__ import annotations

import os
import pty
import select
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

RUNS = 5
PROMPT_READY = b"\x1b[?2004h"  # prompt_toolkit turns bracketed paste on when the prompt waits


def env(home: Path) -> dict[str, str]:
    e = {k: v for k, v in os.environ.items() if not k.endswith("_API_KEY")}
    e.update({"COMPACT_AGENT_HOME": str(home), "COMPACT_AGENT_CONFIG": str(home / "config.toml"), "TERM": "xterm",
              "PROMPT_TOOLKIT_NO_CPR": "1"})
    return e


def command(*args: str) -> list[str]:
    return [sys.executable, "-m", "compact_agent", *args]


def timed_run(args: list[str], home: Path) -> float:
    start = time.perf_counter()
    subprocess.run(args, env=env(home), capture_output=True, check=True)
    return time.perf_counter() - start


def time_to_prompt(home: Path, cwd: Path) -> float:
    main, child = pty.openpty()
    start = time.perf_counter()
    proc = subprocess.Popen(command("--model", "fake-model", "--base-url", "http://127.0.0.1:9/v1", "--api-key", "k"),
                            cwd=cwd, env=env(home), stdin=child, stdout=child, stderr=child, close_fds=True)
    os.close(child)
    seen = b""
    try:
        while PROMPT_READY not in seen:
            if not select.select([main], [], [], 30)[0]:
                raise RuntimeError("no prompt within 30 s")
            seen += os.read(main, 65536)
        return time.perf_counter() - start
    finally:
        proc.kill()
        proc.wait()
        os.close(main)


def main() -> None:
    with tempfile.TemporaryDirectory() as tmp:
        home, cwd = Path(tmp) / "home", Path(tmp) / "project"
        cwd.mkdir()
        rows = [("--version", [timed_run(command("--version"), home) for _ in range(RUNS)], 0.3),
                ("--help", [timed_run(command("--help"), home) for _ in range(RUNS)], 0.3),
                ("REPL prompt", [time_to_prompt(home, cwd) for _ in range(RUNS)], 1.0)]
    print(f"{'what':<12} {'median s':>9} {'min s':>7} {'target s':>9}")
    for name, times, target in rows:
        med = statistics.median(times)
        print(f"{name:<12} {med:>9.2f} {min(times):>7.2f} {target:>9.1f}  {'ok' if med <= target else 'SLOW'}")


if __name__ == "__main__":
    main()
