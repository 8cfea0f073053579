"""`true` where a setting takes a number was taken as 1: `read_max_bytes = true` read one byte of
every file, `bash_timeout_s = true` gave every command a second, `max_retries = true` one retry,
without a word. Now it is a bad value like any other of the wrong kind."""

from __future__ import annotations

from pathlib import Path

from tests.settings_cases import refused


def test_true_for_a_number_is_a_bad_value(user_config: Path, tmp_path: Path) -> None:
    user_config.write_text("read_max_bytes = true\nbash_timeout_s = true\nmax_retries = false\nimages = true\n")
    assert refused(tmp_path) == (
        f"bad values for 3 settings (from {user_config}): max_retries: expected a whole number from 0 to 10, not "
        "false; bash_timeout_s: expected a number above 0 and at most 600, not true; read_max_bytes: expected a "
        "whole number of 1 or more, not true")
