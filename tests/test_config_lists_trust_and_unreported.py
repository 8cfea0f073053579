"""`compact-agent config` lists all it reads and keeps: the user file's `trusted_projects` (the
table, --json) and the servers kept as having reported no window (`servers/unreported.json`), which
`config --forget-server all` forgot with a line each while `config` said of them nothing."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from compact_agent import cli_windows
from compact_agent.agent.run import server_report
from compact_agent.settings_file import load, render


@pytest.fixture
def user_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    path = tmp_path / "config.toml"
    monkeypatch.setenv("COMPACT_AGENT_CONFIG", str(path))
    return path


def test_config_lists_the_trusted_projects(tmp_path: Path, user_file: Path) -> None:
    work = tmp_path / "work"
    work.mkdir()
    user_file.write_text(f'trusted_projects = ["{work}", "~/elsewhere"]\n')
    loaded = load(work)
    assert f"trusted projects: {work}, ~/elsewhere (trusted_projects in the user file)\n" in render(loaded)
    data = json.loads(render(loaded, as_json=True))
    assert data["trusted_projects"] == [str(work), "~/elsewhere"] and data["project_trusted"] is True


def test_config_says_when_no_project_is_trusted(tmp_path: Path, user_file: Path) -> None:
    assert "trusted projects: none (trusted_projects in the user file)\n" in render(load(tmp_path))
    assert json.loads(render(load(tmp_path), as_json=True))["trusted_projects"] == []


def test_config_lists_the_servers_that_reported_no_window(tmp_path: Path) -> None:
    home = tmp_path / "home"
    url = "http://127.0.0.1:8000/v1"
    assert "reported no window" not in cli_windows.with_windows("", home, False, None)  # none kept: no line
    from datetime import UTC, datetime
    server_report.keep_quiet(home, url, "qwen", datetime(2026, 12, 5, 10, 0, tzinfo=UTC))
    out = cli_windows.with_windows("", home, False, None)
    assert f"{url}  qwen  reported no window when asked, 2026-12-05 10:00 UTC" in out, out
    assert "--forget-server URL" in out.splitlines()[-1]
    data = cli_windows.with_windows("{}", home, True, None)
    assert json.loads(data)["unreported_windows"] == [
        {"endpoint": url, "model": "qwen", "asked": "2026-12-05T10:00:00+00:00"}]
    assert server_report.forget_quiet(home, "all") == [(url, "qwen")]  # what config listed is what it forgets
    assert "reported no window" not in cli_windows.with_windows("", home, False, None)
