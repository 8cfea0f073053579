"""A reader that leaves early (`| head`) ends the program quietly with 141 (pipes.py)."""

from __future__ import annotations

import sys

import pytest

from compact_agent.pipes import EXIT_READER_GONE, guarded_output


def test_a_broken_pipe_met_past_the_guarded_streams_ends_quietly() -> None:
    """The REPL's terminal library writes to the file itself; its BrokenPipeError reached the CLI's
    catch-all and printed `compact-agent: Broken pipe`, exit 1."""
    before = sys.stdout
    with pytest.raises(SystemExit) as ended:
        with guarded_output():
            raise BrokenPipeError(32, "Broken pipe")
    assert ended.value.code == EXIT_READER_GONE and sys.stdout is before


def test_other_errors_pass_through_unchanged() -> None:
    with pytest.raises(ValueError, match="not a pipe"):
        with guarded_output():
            raise ValueError("not a pipe")
