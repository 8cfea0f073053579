"""A command started in a current directory that was deleted (or moved away) under the shell: one
line saying so and exit 2, as a `--cwd` that does not exist, never a traceback; `--cwd` naming a
folder by its full path still works from there."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.e2e.conftest import REPO
from tests.e2e.test_one_line_errors import one_clear_line

GONE = "the current directory no longer exists (deleted or moved); cd into the project again"


def run_in_gone_dir(tmp_path: Path, *args: str) -> subprocess.CompletedProcess[str]:
    """`compact-agent ARGS` started in a folder removed before it runs (as `cd d; rmdir d` leaves a shell)."""
    gone = tmp_path / "gone"
    gone.mkdir()

    def enter_and_remove() -> None:
        os.chdir(gone)
        os.rmdir(gone)

    env = {k: v for k, v in os.environ.items() if not k.endswith("_API_KEY")}
    env.update({"COMPACT_AGENT_HOME": str(tmp_path / "home"), "COMPACT_AGENT_CONFIG": str(tmp_path / "config.toml"),
                "PYTHONPATH": str(REPO / "src")})
    return subprocess.run([sys.executable, "-m", "compact_agent.cli", *args], capture_output=True, text=True,
                          stdin=subprocess.DEVNULL, env=env, timeout=120, preexec_fn=enter_and_remove)


@pytest.mark.parametrize("args", [
    ("-p", "hi"),
    ("-p", "--output-format", "json", "hi"),
    ("hi",),  # the REPL's first message
    ("config",),
    ("sessions",),
    ("analyze", "x.json", "-m", "deepseek-chat"),  # its summary model's settings are read from the directory
], ids=lambda a: " ".join(a))
def test_a_deleted_current_directory_is_one_line(tmp_path: Path, args: tuple[str, ...]) -> None:
    res = run_in_gone_dir(tmp_path, *args)
    assert res.returncode == 2, res.stderr
    assert GONE in one_clear_line(res.stderr)


def test_cwd_given_by_its_full_path_works_from_a_deleted_one(tmp_path: Path) -> None:
    project = tmp_path / "project"
    project.mkdir()
    listed = run_in_gone_dir(tmp_path, "--cwd", str(project), "sessions")
    said, where = listed.stdout.splitlines()
    assert listed.returncode == 0 and said == f"no sessions in {project.resolve()}", listed.stderr
    assert where.startswith("sessions folder: ") and "(this directory's; " in where, where
    shown = run_in_gone_dir(tmp_path, "--cwd", str(project), "config")
    assert shown.returncode == 0, shown.stderr
    relative = run_in_gone_dir(tmp_path, "--cwd", "project", "config")
    assert relative.returncode == 2
    assert "--cwd project is relative to the current directory, which no longer exists" in one_clear_line(relative.stderr)
