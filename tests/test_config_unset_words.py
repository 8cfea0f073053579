"""`compact-agent config` and `/config` say an unset value in words: the table said `null` for
base_url, summary_model, memory_model and images, JSON's word, read as "none" (no model for the
summary?). The table now says `not set` and what that means; `--json` keeps null."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from compact_agent.settings_file import load, render


@pytest.fixture
def loaded(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    for k in list(os.environ):
        if k.startswith("COMPACT_AGENT_"):
            monkeypatch.delenv(k)
    monkeypatch.setenv("COMPACT_AGENT_CONFIG", str(tmp_path / "none.toml"))
    return load(tmp_path)


def row(table: str, key: str) -> str:
    [line] = [line for line in table.splitlines() if line.split(" ", 1)[0] == key]
    return " ".join(line.split())


def test_unset_values_are_said_in_words(loaded) -> None:
    table = render(loaded)
    assert row(table, "base_url") == "base_url not set (the model's provider) default"
    assert row(table, "summary_model") == "summary_model not set (the main model) default"
    assert row(table, "memory_model") == "memory_model not set (the main model) default"
    assert row(table, "images") == "images not set (yes if the model is known to take images) default"
    assert "null" not in table


def test_json_keeps_null(loaded) -> None:
    settings = json.loads(render(loaded, as_json=True))["settings"]
    assert [settings[k]["value"] for k in ("base_url", "summary_model", "memory_model", "images")] == [None] * 4
