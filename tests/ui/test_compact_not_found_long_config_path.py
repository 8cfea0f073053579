"""A /compact whose summary request answers HTTP 404, with the model chosen in a config file at a
long path, names the file's line whole: the path made the line longer than its 400 characters, and
the middle cut (error_causes.bounded) took out the advice that names the file: 'check the model name
(model = … and that --base-url …'. A path is said whole and not counted against the limit now, and a
cut that would take a clause naming one ends before it. Real HTTP: the fake OpenAI server answers
every summary request with HTTP 404."""

from __future__ import annotations

from pathlib import Path

import pytest

from compact_agent.error_causes import LINE_LIMIT, bounded
from compact_agent.settings_file import Loaded

from .not_found_compact import SETTINGS, compact_in_print_mode, compact_in_the_repl


def _config(tmp_path: Path) -> tuple[Loaded, Path]:
    """The model as a user config file ~200 characters deep chose it."""
    folder = tmp_path
    while len(str(folder)) < 180:
        folder = folder / "settings-kept-in-a-deep-folder"
    folder.mkdir(parents=True)
    file = folder / "config.toml"
    file.write_text('model = "fake-model"\n')
    assert len(str(file)) >= 190
    return Loaded(SETTINGS, {"model": "user file"}, file, tmp_path / "project" / ".compact-agent.toml"), file


def test_print_modes_compact_names_the_config_files_line_whole(tmp_path: Path,
                                                               capsys: pytest.CaptureFixture[str]) -> None:
    config, file = _config(tmp_path)
    err, _ = compact_in_print_mode(tmp_path, capsys, config)
    assert f'check the model name (model = "fake-model" in {file}) and that --base-url' in err, err
    assert "answered HTTP 404" in err and err.rstrip().endswith("nothing was changed"), err


async def test_the_repls_compact_names_it_too(tmp_path: Path) -> None:
    config, file = _config(tmp_path)
    run = await compact_in_the_repl(tmp_path, config)
    said = " ".join(run.out.split())
    assert "not compacted: the summary request failed:" in said, run.out
    # The terminal folds the path where the line reaches its width: compared without the spaces.
    whole = f'check the model name (model = "fake-model" in {file}) and that --base-url'
    assert "".join(whole.split()) in "".join(run.out.split()), run.out


def test_a_cut_that_would_take_the_clause_naming_a_path_ends_before_it() -> None:
    """A provider's long message, a long path and a long end after it (the second form failed too):
    the middle cut takes the message, not the advice naming the path."""
    path = "/home/someone/" + "deep/" * 40 + "config.toml"
    said = " ".join(f"word{i}" for i in range(60))
    advice = (f'check the model name (model = "m" in {path}) and that --base-url is the server\'s API address (it '
              "often ends in /v1); sent again as text (its second form), it failed too: the provider answered HTTP "
              "404: the model m is not served here (2 requests in all); nothing "
              "was changed")
    line = f"not compacted: the summary request failed: the provider answered HTTP 404: {said}; {advice}"
    cut = bounded(line)
    assert cut.startswith("not compacted: the summary request failed: the provider answered HTTP 404: word0"), cut
    assert cut.endswith(f" … {advice}"), cut
    assert len(cut) - len(path) + 1 <= LINE_LIMIT, cut
    assert bounded("see /a/b") == "see /a/b"
    blob = "the reply held " + "/" + "9j4AAQSkZJRgABAQ" * 100  # no path: a word longer than the limit is cut
    assert len(bounded(blob)) <= LINE_LIMIT
