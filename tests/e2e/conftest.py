"""Helpers to run the real `compact-agent` CLI in a subprocess against the fake provider.

Each run is forked from a pre-imported process (the reliability suite's zygote): the same `main()`
in its own process, stdin a pipe the input is written into (or at end of file), without the
1.5-3 s of imports each time. A `Cli` made with no zygote starts a fresh interpreter instead."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest

from tests.forked_cli import run_forked
from tests.reliability.harness import Zygote

REPO = Path(__file__).resolve().parents[2]


@dataclass
class CliResult:
    code: int
    stdout: str
    stderr: str

    def json(self) -> dict:
        return json.loads(self.stdout)


@dataclass
class Cli:
    home: Path
    cwd: Path
    zygote: Zygote | None = None

    def __call__(self, *args: str, timeout: float = 120, env: dict[str, str] | None = None,
                 input: str | bytes | None = None) -> CliResult:
        """Runs with `input` on stdin (bytes are sent as they are), else with stdin at end of file
        (never the test runner's own)."""
        full_env = {k: v for k, v in os.environ.items() if not k.endswith("_API_KEY")}
        full_env.update({"COMPACT_AGENT_HOME": str(self.home), "PYTHONPATH": str(REPO / "src"),
                         "COMPACT_AGENT_CONFIG": str(self.home / "config.toml")})  # never the user's own file
        full_env.update(env or {})
        data = input.encode() if isinstance(input, str) else input
        if self.zygote is not None:
            code, out, err = run_forked(list(args), full_env, self.cwd, timeout, input=data)
            return CliResult(code, out.decode(), err.decode())
        stdin = {"input": data} if data is not None else {"stdin": subprocess.DEVNULL}
        proc = subprocess.run([sys.executable, "-m", "compact_agent.cli", *args], cwd=self.cwd,
                              capture_output=True, timeout=timeout, env=full_env, **stdin)
        return CliResult(proc.returncode, proc.stdout.decode(), proc.stderr.decode())

    def sessions(self) -> list[Path]:
        return sorted((self.home / "projects").glob("*/*.jsonl"))

    def archives(self) -> list[Path]:
        """Oldest first (by modification time: names only carry the second)."""
        return sorted((self.home / "projects").glob("*/compact-history/*.jsonl"), key=lambda p: p.stat().st_mtime_ns)


@pytest.fixture
def cli(tmp_path: Path, zygote: Zygote) -> Cli:  # zygote: tests/conftest.py
    cwd = tmp_path / "project"
    cwd.mkdir()
    return Cli(home=tmp_path / "home", cwd=cwd, zygote=zygote)
