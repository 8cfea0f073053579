"""A config file with two bad values says both at once. `autocompact_buffer = -5` and
`bash_timeout_s = "x"` in config.toml said only the first; the second was said once the first was
fixed. Now one line names every bad value, each with its reason, exit 2 and no traceback; a single
bad value reads as it always did."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from compact_agent.settings_file import SettingsError, load


@pytest.fixture
def user(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    for k in list(os.environ):
        if k.startswith("COMPACT_AGENT_"):
            monkeypatch.delenv(k)
    path = tmp_path / "config.toml"
    monkeypatch.setenv("COMPACT_AGENT_CONFIG", str(path))
    return path


def refused(cwd: Path) -> str:
    with pytest.raises(SettingsError) as info:
        load(cwd)
    return str(info.value)


def test_every_bad_value_of_a_file_in_one_line(user: Path, tmp_path: Path) -> None:
    user.write_text('autocompact_buffer = -5\nbash_timeout_s = "x"\ndeny_bash = [3]\n')
    assert refused(tmp_path) == (
        f"bad values for 3 settings (from {user}): deny_bash: expected a list of patterns; "
        "autocompact_buffer: must be 0 or more tokens (such as 32000, 32k or 128K), not -5; "
        "bash_timeout_s: expected a number above 0 and at most 600, not 'x'")


def test_bad_values_from_several_places_name_each_place(user: Path, tmp_path: Path,
                                                         monkeypatch: pytest.MonkeyPatch) -> None:
    user.write_text("autocompact_buffer = -5\n")
    monkeypatch.setenv("COMPACT_AGENT_BASH_TIMEOUT_S", "x")
    assert refused(tmp_path) == (
        f"bad values for 2 settings: autocompact_buffer (from {user}): must be 0 or more tokens (such as 32000, "
        "32k or 128K), not -5; bash_timeout_s (from env COMPACT_AGENT_BASH_TIMEOUT_S): expected a number above 0 "
        "and at most 600, not 'x'")
    monkeypatch.delenv("COMPACT_AGENT_BASH_TIMEOUT_S")
    assert refused(tmp_path) == (f"bad value for autocompact_buffer (from {user}): must be 0 or more tokens "
                                 "(such as 32000, 32k or 128K), not -5")  # one: as it always read
