"""The tool tests' working directory and the tool environment over it, and a HOME of their own,
shared by their files."""

from __future__ import annotations

from pathlib import Path

import pytest

from compact_agent.agent.tools.base import ToolEnv

from .test_tools import make_env


@pytest.fixture
def work(tmp_path: Path) -> Path:
    d = tmp_path / "work"
    d.mkdir()
    return d


@pytest.fixture
def env(work: Path) -> ToolEnv:
    return make_env(work)


@pytest.fixture
def home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A HOME of the test's own, so the machine's global git config and excludes file play no part
    (the search tests use it for every test: `pytestmark = pytest.mark.usefixtures("home")`)."""
    home = tmp_path / "home"
    home.mkdir()
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.delenv("XDG_CONFIG_HOME", raising=False)
    monkeypatch.delenv("GIT_CONFIG_GLOBAL", raising=False)
    return home
