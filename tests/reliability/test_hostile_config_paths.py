"""A config file whose list of paths holds one no path can be — a NUL character, a `~user` whose
home folder is unknown — stops start-up with one line naming the setting and the file, as any bad
value does; it said Python's words alone ('embedded null byte', 'Could not determine home
directory.') and named neither."""

from __future__ import annotations

from pathlib import Path

import pytest

from .common import cli


@pytest.mark.parametrize(("setting", "value"), [
    ("trusted_projects", "\\u0000"),
    ("trusted_projects", "~no-such-user-4f2a/work"),
    ("extra_dirs", "\\u0000"),
    ("extra_dirs", "~no-such-user-4f2a/work"),
])
def test_a_path_list_entry_that_is_no_path_is_one_line_naming_the_setting(tmp_path: Path, setting: str,
                                                                          value: str) -> None:
    config = tmp_path / "config.toml"
    config.write_text(f'{setting} = ["{value}"]\n')
    cwd = tmp_path / "project"
    cwd.mkdir()
    run = cli(tmp_path / "home", cwd, "-p", "hi", "--base-url", "http://127.0.0.1:9/v1", "-m", "fake-model",
              env={"COMPACT_AGENT_CONFIG": str(config)}, timeout=60)
    lines = run.stderr_lines()
    assert run.code == 2, run.stderr
    assert len(lines) == 1 and lines[0].startswith("compact-agent: "), lines
    assert setting in lines[0] and str(config) in lines[0], lines
    assert "Traceback" not in run.stderr and "embedded null byte" not in run.stderr
    assert "Could not determine" not in run.stderr
