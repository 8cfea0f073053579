"""A bad value in a settings file is said in the program's words: `context_window = 32k` unquoted
(as a window is written on the command line) gets a hint to quote it, not TOML's parse error alone;
`max_retries = "many"` says what the setting takes and its range, not pydantic's "Input should be a
valid integer, unable to parse string as an integer"; `tool_result_room_share = 7` is refused (a
share is within (0, 1])."""

from __future__ import annotations

import os

import pytest

from compact_agent.settings_file import SettingsError, load


@pytest.fixture
def user(tmp_path, monkeypatch):
    for k in list(os.environ):
        if k.startswith("COMPACT_AGENT_"):
            monkeypatch.delenv(k)
    path = tmp_path / "user.toml"
    monkeypatch.setenv("COMPACT_AGENT_CONFIG", str(path))
    (tmp_path / "project").mkdir()
    return path


def refused(user, text: str) -> str:
    user.write_text(text)
    with pytest.raises(SettingsError) as info:
        load(user.parent / "project")
    line = str(info.value)
    assert "\n" not in line and "Input should" not in line, line
    return line


def test_an_unquoted_window_gets_a_hint_to_quote_it(user) -> None:
    line = refused(user, "model = \"fake\"\n[compaction]\ncontext_window = 32k  # as in the docs\n")
    assert line.startswith(f"{user}: not valid TOML (")
    assert line.endswith('(named by COMPACT_AGENT_CONFIG); write text in quotes: context_window = "32k"'), line
    assert refused(user, "model = deepseek-chat\n").endswith('write text in quotes: model = "deepseek-chat"')
    assert "quotes" not in refused(user, "max_retries = [1,\n")  # not a bare word: no hint


@pytest.mark.parametrize("text, says", [
    ('max_retries = "many"', "expected a whole number from 0 to 10, not 'many'"),
    ("max_retries = 11", "must be a whole number from 0 to 10, not 11"),
    ("tool_result_room_share = 7", "must be a number above 0 and at most 1, not 7"),
    ("tool_result_room_share = 0", "must be a number above 0 and at most 1, not 0"),
    ('images = "maybe"', "expected true or false, not 'maybe'"),
    ("model = 3", "expected text in quotes, not 3"),
    ("read_max_bytes = 0", "must be a whole number of 1 or more, not 0"),
    ("bash_timeout_s = 0", "must be a number above 0 and at most 600, not 0"),
    ("allow_bash = [1]", "expected a list of text in quotes ([\"...\"]), and item 1 is 1"),
])
def test_a_bad_value_says_what_the_setting_takes(user, text: str, says: str) -> None:
    key = text.split()[0]
    assert refused(user, text + "\n") == f"bad value for {key} (from {user}): {says}"


def test_a_share_of_one_is_the_most(user) -> None:
    user.write_text("tool_result_room_share = 1.0\n")
    assert load(user.parent / "project").settings.tool_result_room_share == 1.0
