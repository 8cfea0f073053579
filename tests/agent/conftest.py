"""The tool tests' working directory and the tool environment over it, shared by their files."""

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
