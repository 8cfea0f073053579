"""Piped input is read up to a cap (cli_input.STDIN_CAP), and more is refused in one line, exit 2:
it was read whole, so `yes | compact-agent -p explain` read until memory ran out and ended in a
MemoryError traceback, and 200 MB of text took 90 s before any request."""

from __future__ import annotations

import io
import os
import resource
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
import typer

from compact_agent import cli_input

REPO = Path(__file__).resolve().parents[2]


class Endless(io.RawIOBase):
    """`yes` in-process: lines without end, but a guard past four caps (raising) so that a reader
    without a bound fails the test rather than filling memory for ever."""

    def __init__(self) -> None:
        self.served = 0

    def readable(self) -> bool:
        return True

    def readinto(self, b: Any) -> int:
        if self.served > 4 * cli_input.STDIN_CAP:
            raise OSError("the test's guard: stdin read past four times the cap")
        n = len(b)
        b[:n] = (b"y\n" * (n // 2 + 1))[:n]
        self.served += n
        return n


class Piped:
    """A piped stdin: its bytes in `buffer`, and no terminal."""

    def __init__(self, buffer: io.BufferedIOBase) -> None:
        self.buffer = buffer

    def isatty(self) -> bool:
        return False


def test_endless_piped_input_is_refused_after_the_cap(monkeypatch: pytest.MonkeyPatch,
                                                      capsys: pytest.CaptureFixture[str]) -> None:
    raw = Endless()
    monkeypatch.setattr(sys, "stdin", Piped(io.BufferedReader(raw)))
    with pytest.raises(typer.Exit) as ended:
        cli_input.with_stdin("-")
    assert ended.value.exit_code == 2
    assert raw.served <= cli_input.STDIN_CAP + (1 << 20)  # no more read than the cap and a buffer's worth
    err = capsys.readouterr().err
    assert err == (f"compact-agent: stdin holds more than {cli_input.STDIN_CAP >> 20} MB, the most piped input is "
                   "read up to: nothing was sent (save it to a file in the project and name the file in the "
                   "prompt: the model can grep it or read it in slices)\n")


def test_input_up_to_the_cap_is_read_whole_and_one_byte_more_is_not(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(cli_input, "STDIN_CAP", 100_000)
    monkeypatch.setattr(sys, "stdin", Piped(io.BytesIO(b"x" * 99_999 + b"\n")))
    assert cli_input.with_stdin("-") == "x" * 99_999 + "\n"
    monkeypatch.setattr(sys, "stdin", Piped(io.BytesIO(b"x" * 100_000 + b"\n")))
    with pytest.raises(typer.Exit):
        cli_input.with_stdin("-")


def test_yes_piped_into_print_mode_is_one_line_not_a_traceback(tmp_path: Path) -> None:
    def bounded() -> None:  # a run without the cap ends in a MemoryError, not in the machine's memory
        resource.setrlimit(resource.RLIMIT_AS, (2 << 30, 2 << 30))

    env = {k: v for k, v in os.environ.items() if not k.endswith("_API_KEY") and not k.startswith("COMPACT_AGENT_")}
    env.update(COMPACT_AGENT_HOME=str(tmp_path / "home"), COMPACT_AGENT_CONFIG=str(tmp_path / "c.toml"),
               PYTHONPATH=str(REPO / "src"))
    yes = subprocess.Popen(["yes"], stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
    try:
        assert yes.stdout is not None
        run = subprocess.run([sys.executable, "-m", "compact_agent.cli", "-p", "explain", "--model", "m",
                              "--base-url", "http://127.0.0.1:9/v1", "--api-key", "k"], stdin=yes.stdout,
                             capture_output=True, text=True, cwd=tmp_path, env=env, timeout=90, preexec_fn=bounded)
    finally:
        yes.kill()
        yes.wait()
        if yes.stdout is not None:
            yes.stdout.close()
    assert run.returncode == 2 and run.stdout == "", run
    assert run.stderr.count("\n") == 1 and run.stderr.startswith("compact-agent: stdin holds more than 32 MB"), run
