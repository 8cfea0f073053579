"""A compact-agent run stopped at a known point of its start, with no timing: the import of one
module it makes on the way is held by a finder put first in sys.meta_path (a sitecustomize.py on
PYTHONPATH). The finder writes a file saying the run got there, then waits: for a signal the test
sends (`signalled_at_import`), or until a file the test makes (`release`) exists."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

from .conftest import REPO

HOLD = """
import os, sys, time

class Hold:
    # The import of HOLD_AT does not finish: READY says the run got there; it waits until the file
    # RELEASE exists, or for good (for a signal) where RELEASE is not set.

    def find_spec(self, name, path=None, target=None):
        if name == os.environ["HOLD_AT"]:
            open(os.environ["READY"], "w").close()
            release = os.environ.get("RELEASE")
            while not (release and os.path.exists(release)):
                time.sleep(0.01)
        return None

sys.meta_path.insert(0, Hold())
"""


def held_env(hook: Path, home: Path, module: str, ready: Path, release: Path | None = None) -> dict[str, str]:
    """The environment of a compact-agent run held at the import of `module` (the finder written to
    `hook`/sitecustomize.py): its data in `home`, no API key from this process's environment; `ready`
    is made once it waits there, and it goes on once `release` exists (never, without one)."""
    hook.mkdir(exist_ok=True)
    (hook / "sitecustomize.py").write_text(HOLD)
    env = {k: v for k, v in os.environ.items() if not k.endswith("_API_KEY")}
    env.update({"COMPACT_AGENT_HOME": str(home), "COMPACT_AGENT_CONFIG": str(home / "config.toml"),
                "PYTHONPATH": f"{hook}:{REPO / 'src'}", "HOLD_AT": module, "READY": str(ready)})
    if release is not None:
        env["RELEASE"] = str(release)
    return env


def wait_held(ready: Path, proc: subprocess.Popen[bytes], timeout: float = 60) -> None:
    """Wait until the run `proc` is held at its import, `ready` made (polled: no fixed sleep)."""
    deadline = time.monotonic() + timeout
    while not ready.exists():
        assert proc.poll() is None, proc.communicate()
        assert time.monotonic() < deadline, "the run never reached the held import"
        time.sleep(0.01)


def signalled_at_import(argv: list[str], cwd: Path, env: dict[str, str], ready: Path,
                        sig: signal.Signals) -> tuple[int, str, str]:
    """Runs `argv` (in `held_env`'s `env`), sends `sig` once it is held: exit, stdout, stderr."""
    with subprocess.Popen(argv, cwd=cwd, env=env, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                          stderr=subprocess.PIPE) as proc:
        try:
            wait_held(ready, proc)
            proc.send_signal(sig)
            out, err = proc.communicate(timeout=30)
        finally:
            if proc.poll() is None:
                proc.kill()
                proc.communicate()
    return proc.returncode, out.decode(), err.decode()


def cli_argv(*args: str, entry: str = "compact_agent.cli") -> list[str]:
    """`python -m ENTRY ARGS` with this interpreter."""
    return [sys.executable, "-m", entry, *args]
