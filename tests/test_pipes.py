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


def test_a_reader_gone_raised_by_the_caller_ends_quietly() -> None:
    """The REPL turns its terminal's BrokenPipeError into ReaderGone (the command-line library
    would end an OSError with 1): it ends with 141 too."""
    from compact_agent.pipes import ReaderGone

    with pytest.raises(SystemExit) as ended:
        with guarded_output():
            raise ReaderGone
    assert ended.value.code == EXIT_READER_GONE


def test_output_to_a_full_disk_is_one_line_and_exit_1(tmp_path) -> None:
    """`compact-agent sessions > /dev/full` printed a 25-line traceback ending in OSError."""
    import subprocess

    for args in (["sessions"], ["--help"], ["-p", "/help", "--model", "m", "--base-url", "http://127.0.0.1:9/v1",
                                            "--api-key", "k"]):
        with open("/dev/full", "w") as full:
            run = subprocess.run([sys.executable, "-m", "compact_agent.cli", *args], stdout=full,
                                 stderr=subprocess.PIPE, stdin=subprocess.DEVNULL, cwd=tmp_path, timeout=60,
                                 env={"COMPACT_AGENT_HOME": str(tmp_path / "home"), "PATH": "/usr/bin:/bin",
                                      "COMPACT_AGENT_CONFIG": str(tmp_path / "c.toml"), "HOME": str(tmp_path)})
        err = run.stderr.decode()
        assert run.returncode == 1 and err.count("\n") == 1 and "No space left on device" in err, (args, err)
        assert "Traceback" not in err


def test_a_reader_gone_is_told_apart_also_inside_a_group() -> None:
    """Print mode marks a turn the reader cut short as stopped (ui/print_mode.py); a task group
    in the turn may hand the ReaderGone on inside a group."""
    from compact_agent.pipes import ReaderGone, reader_left

    assert reader_left(ReaderGone())
    assert reader_left(BaseExceptionGroup("turn", [ValueError("x"), BaseExceptionGroup("tools", [ReaderGone()])]))
    assert not reader_left(KeyboardInterrupt())
    assert not reader_left(BaseExceptionGroup("turn", [KeyboardInterrupt()]))
