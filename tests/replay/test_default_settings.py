"""The replay of ours uses the product's default settings: a `COMPACT_AGENT_*` variable left set in
the shell neither moves the figures nor, with a bad value, makes every file "unreplayable"; it is
named once, as not read."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from compact_agent.replay.ours import default_settings
from compact_agent.replay.report import run_cli

from .test_batch import _chat


def test_the_environment_does_not_change_the_settings_of_ours(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("COMPACT_AGENT_STALL_WAIT_USD", "0")
    monkeypatch.setenv("COMPACT_AGENT_MEMORY_ENABLED", "true")
    s = default_settings()
    assert s.stall_wait_usd > 0 and not s.memory_enabled


def _run(folder: Path, capsys: pytest.CaptureFixture[str]) -> tuple[int, dict, str]:
    code = run_cli([folder], window=8_000, strategies=["ours", "seed000"], pricing="deepseek", as_json=True,
                   plot=None, model=None)
    out, err = capsys.readouterr()
    return code, json.loads(out), err


def test_a_set_or_bad_variable_is_named_once_and_the_figures_stay(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                                  capsys: pytest.CaptureFixture[str]) -> None:
    for n in (4, 9):
        (tmp_path / f"t{n}.json").write_text(json.dumps(_chat(n)))
    code, plain, err = _run(tmp_path, capsys)
    assert code == 0 and "note" not in err
    for value in ("abc", "0"):
        monkeypatch.setenv("COMPACT_AGENT_STALL_WAIT_USD", value)
        code, got, err = _run(tmp_path, capsys)
        assert code == 0, err
        assert got == plain
        assert err.splitlines() == ["compact-agent: note: ours is replayed with the default settings; "
                                    "COMPACT_AGENT_STALL_WAIT_USD (set here) is not read "
                                    "(--set NAME=VALUE sets one for the replay)"]
