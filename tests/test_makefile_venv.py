"""The Makefile never installs into a venv another checkout installed compact-agent into: from a
clone, `make VENV=../main/.venv lint` would `pip install -e .` there and point every user of that
venv at the clone. Each venv here is made without pip (a fraction of a second); its compact-agent
is a dist-info naming where it was installed from, as pip writes it for an editable install."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import venv
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]

pytestmark = pytest.mark.skipif(shutil.which("make") is None, reason="make is not installed")


def _venv(where: Path, installed_from: Path | None) -> Path:
    venv.create(where, with_pip=False, symlinks=True)
    if installed_from is not None:
        (site,) = where.glob("lib/python3*/site-packages")
        info = site / "compact_agent-0.1.0.dist-info"
        info.mkdir()
        (info / "METADATA").write_text("Metadata-Version: 2.1\nName: compact-agent\nVersion: 0.1.0\n")
        (info / "direct_url.json").write_text(json.dumps(
            {"dir_info": {"editable": True}, "url": installed_from.resolve().as_uri()}))
    return where


def _make(*args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(["make", "--no-print-directory", "-C", str(REPO), *args], capture_output=True,
                          text=True, timeout=60, env={**os.environ, **(env or {})})


def test_a_venv_another_checkout_installed_into_is_refused_in_one_line(tmp_path: Path) -> None:
    other = tmp_path / "other-checkout"
    other.mkdir()
    env = _venv(tmp_path / "venv", installed_from=other)
    done = _make(f"VENV={env}", "install")
    assert done.returncode != 0
    refusal = [line for line in done.stderr.splitlines() if not line.startswith("make")]
    assert refusal == [f"not installing into {env}: its compact-agent is the one in {other.resolve()}, not this "
                       f"checkout ({REPO}); leave VENV unset to use and build this checkout's own .venv"]
    assert "pip" not in done.stdout + done.stderr  # nothing was installed, not even pip upgraded
    assert not (env / ".installed").exists()


@pytest.mark.parametrize("installed_from", ["this checkout", "nowhere"])
def test_a_venv_of_this_checkout_or_a_new_one_is_installed_into(tmp_path: Path, installed_from: str) -> None:
    env = _venv(tmp_path / "venv", installed_from=REPO if installed_from == "this checkout" else None)
    done = _make(f"VENV={env}", "install")
    # the install goes on to pip, which a venv made without it does not have
    assert "not installing" not in done.stderr
    assert f"installing compact-agent and its dev dependencies into {env}" in done.stdout
    assert "No module named pip" in done.stderr


def test_the_number_of_workers_can_be_set_in_the_environment() -> None:
    done = _make("-n", f"VENV={sys.prefix}", "test", env={"WORKERS": "3"})  # -n: prints, runs nothing
    (pytest_line,) = [line for line in done.stdout.splitlines() if "-m pytest" in line]
    assert "-m pytest -q -n 3;" in pytest_line
