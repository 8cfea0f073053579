"""The test process's one zygote (tests/reliability/zygote.py), and `compact-agent` runs forked
from it: the real `main()` in a process of its own, stdin at end of file, stdout and stderr files,
without the second or more of importing pydantic-ai a fresh interpreter spends on every run.

Fixtures get the zygote from tests/conftest.py (`zygote`); helpers that are plain functions (the
analyzer's `cli()`) call `shared_zygote()`. Both are the same process, closed at the session's end."""

from __future__ import annotations

import shutil
import tempfile
from pathlib import Path

from tests.reliability.harness import Zygote

_shared: Zygote | None = None


def shared_zygote() -> Zygote:
    """Started on first use: a test process that never runs the CLI never starts it."""
    global _shared
    if _shared is None:
        _shared = Zygote()
    return _shared


def close_shared_zygote() -> None:
    global _shared
    if _shared is not None:
        _shared.close()
        _shared = None


def run_forked(args: list[str], env: dict[str, str], cwd: Path, timeout: float) -> tuple[int, bytes, bytes]:
    """`compact-agent ARGS` with exactly `env` in `cwd`: its exit code, stdout and stderr."""
    out = Path(tempfile.mkdtemp(prefix="compact-agent-cli-"))  # outside the test's own folders
    try:
        child = shared_zygote().spawn("cli", args, env, cwd, out / "stdout", out / "stderr")
        code = child.wait(timeout)
        return code, child.out.read_bytes(), child.err.read_bytes()
    finally:
        shutil.rmtree(out, ignore_errors=True)
