"""COMPACT_AGENT_HOME unset and the default folder for sessions (under HOME) not writable: one line
naming that folder and saying to set COMPACT_AGENT_HOME, exit 2, before anything else happens, as a
bad COMPACT_AGENT_HOME already got. It was a warning that the prompt could not be saved early, then
`compact-agent: Operation not permitted: /sys/.local`, exit 1, and the JSON error the same bare text.

A HOME nothing can be made in: a folder made read-only, or, for root (whom file modes do not stop),
/sys, where not even root can make a folder (nothing is made there: the test checks it)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from compact_agent.config import home_problem
from tests.forked_cli import run_forked

from .conftest import REPO


@pytest.fixture
def read_only_home(tmp_path: Path):
    """A HOME in which the default folder for sessions cannot be made."""
    if os.geteuid() == 0:
        home = Path("/sys")
        assert not (home / ".local").exists()
        yield home
        assert not (home / ".local").exists()
        return
    home = tmp_path / "home"
    home.mkdir()
    home.chmod(0o500)
    try:
        yield home
    finally:
        home.chmod(0o700)


def environment(home: Path, tmp_path: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items()
           if not k.endswith("_API_KEY") and k not in ("COMPACT_AGENT_HOME", "XDG_DATA_HOME")}
    env.update({"HOME": str(home), "PYTHONPATH": str(REPO / "src"),
                "COMPACT_AGENT_CONFIG": str(tmp_path / "no-config.toml")})  # never the user's own file
    return env


def test_home_problem_names_the_default_folder(read_only_home: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    for name in ("COMPACT_AGENT_HOME", "XDG_DATA_HOME"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("HOME", str(read_only_home))
    default = f"{read_only_home}/.local/share/compact-agent"
    for make in (True, False):  # a run; a listing
        problem = home_problem(make=make)
        assert problem is not None and problem.startswith(f"cannot keep sessions in the default folder, {default} ("), problem
        assert problem.endswith("); set COMPACT_AGENT_HOME to a folder compact-agent can write its sessions in")
        assert f": {read_only_home}/.local)" in problem  # the reason, and the folder that could not be made
    assert not (read_only_home / ".local").exists()


@pytest.mark.parametrize("output", ["text", "json"])
def test_a_run_says_so_in_one_line_before_anything_else(read_only_home: Path, tmp_path: Path, output: str) -> None:
    cwd = tmp_path / "project"
    cwd.mkdir()
    code, out, err = run_forked(["-p", "hi", "--model", "fake-model", "--base-url", "http://127.0.0.1:9/v1",
                                 "--api-key", "sk-test", "--output-format", output],
                                environment(read_only_home, tmp_path), cwd, 120)
    line = f"compact-agent: cannot keep sessions in the default folder, {read_only_home}/.local/share/compact-agent ("
    assert code == 2 and err.decode().startswith(line) and err.decode().count("\n") == 1, err.decode()
    assert "set COMPACT_AGENT_HOME to a folder" in err.decode()
    if output == "json":
        assert out.decode().startswith('{"type": "result", "subtype": "error"') and "set COMPACT_AGENT_HOME" in out.decode()
    else:
        assert out == b""
