"""A /compact whose summary request the endpoint answers with HTTP 404 names how the model was
chosen, in the REPL as `-p /compact` does: the REPL added no note to the failure, so its line said
`check the model name (/model fake-model)` whatever had chosen the model (a variable, a config file's
line, `-m`), and print mode `(-m fake-model)`: the note a failed turn carries was added to the
/compact's line after it was written. A `summary_model` of its own that answers 404 is named as the
setting, where it was set: its line said `-m summarizer` (in the REPL `/model summarizer`)."""

from __future__ import annotations

from pathlib import Path

import pytest

from compact_agent.config import Settings
from compact_agent.settings_file import Loaded

from .not_found_compact import SETTINGS, compact_in_print_mode, compact_in_the_repl

CHOSEN = "check the model name (COMPACT_AGENT_MODEL=fake-model) and that --base-url"


def _config(tmp_path: Path) -> Loaded:
    """The model as the variable chose it (no file is read: the sources are what the notes read)."""
    return Loaded(SETTINGS, {"model": "env COMPACT_AGENT_MODEL"}, tmp_path / "config.toml",
                  tmp_path / "project" / ".compact-agent.toml")


def _own_summary_model(tmp_path: Path) -> tuple[Settings, Loaded]:
    """A `summary_model` of its own, set in the user's config file; the model by the variable."""
    own = Settings(model="fake-model", summary_model="summarizer", memory_enabled=False, max_retries=0,
                   transient_retries=0)
    return own, Loaded(own, {"model": "env COMPACT_AGENT_MODEL", "summary_model": "user file"},
                       tmp_path / "config.toml", tmp_path / "project" / ".compact-agent.toml")


async def test_the_repls_compact_names_the_variable_that_chose_the_model(tmp_path: Path) -> None:
    run = await compact_in_the_repl(tmp_path, _config(tmp_path))
    said = " ".join(run.out.split())
    assert "not compacted: the summary request failed:" in said, run.out
    assert CHOSEN in said, run.out
    assert "/model fake-model" not in said, run.out


def test_print_modes_compact_names_the_same(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    err, _ = compact_in_print_mode(tmp_path, capsys, _config(tmp_path))
    err = " ".join(err.split())
    assert CHOSEN in err and "-m fake-model" not in err, err


def test_a_summary_model_of_its_own_is_not_said_as_the_sessions_choice(tmp_path: Path,
                                                                       capsys: pytest.CaptureFixture[str]) -> None:
    """The 404 of a `summary_model` other than the session's is not of the model the variable chose."""
    own, _ = _own_summary_model(tmp_path)
    err, asked = compact_in_print_mode(tmp_path, capsys, _config(tmp_path), own)
    assert asked == {"summarizer"}
    err = " ".join(err.split())
    assert "answered HTTP 404" in err and "COMPACT_AGENT_MODEL=fake-model" not in err, err


def test_a_summary_models_404_names_the_setting_where_it_was_set(tmp_path: Path,
                                                                 capsys: pytest.CaptureFixture[str]) -> None:
    """Its 404 said `check the model name (-m summarizer)`, a flag that chooses no summary model."""
    own, config = _own_summary_model(tmp_path)
    err, asked = compact_in_print_mode(tmp_path, capsys, config, own)
    assert asked == {"summarizer"}
    err = " ".join(err.split())
    said = f'check the model name (summary_model = "summarizer" in {tmp_path / "config.toml"}) and that --base-url'
    assert said in err and "-m summarizer" not in err, err


async def test_the_repl_says_the_same_of_it(tmp_path: Path) -> None:
    own, config = _own_summary_model(tmp_path)
    run = await compact_in_the_repl(tmp_path, config, own)
    said = " ".join(run.out.split())
    assert f'check the model name (summary_model = "summarizer" in {tmp_path / "config.toml"})' in said, run.out
    assert "/model summarizer" not in said, run.out
