"""`cli.main()` ends a Ctrl-C in one line and exit code 130. The command-line library catches an
interrupt only while a command is parsed and run (it exits 130 itself, silently); one that lands
outside that, as while a usage error is being written, reaches `main()`'s own handler, which is
therefore not dead code: without it the interrupt ended in a traceback."""

from __future__ import annotations

import json
import sys

import click
import pytest
from typer.core import TyperGroup

from compact_agent import cli, cli_help, stop_signals
from compact_agent.cli_help import OneLineUsage


def ends_in_one_line(monkeypatch: pytest.MonkeyPatch, capfd: pytest.CaptureFixture[str], argv: list[str]) -> str:
    """`cli.main()` run on `argv` (with an interrupt planted by the caller) exits 130 with one line
    (written by stop_signals straight to the file descriptor, as a signal's line is); its stdout."""
    monkeypatch.setattr(sys, "argv", ["compact-agent", *argv])
    monkeypatch.setattr(stop_signals, "_state", stop_signals._State())  # no earlier run's prompt or JSON
    monkeypatch.setattr(cli_help, "_errors_as_json", None)
    try:
        with pytest.raises(SystemExit) as ended:
            cli.main()
    except KeyboardInterrupt:  # not let through to pytest, which would stop the whole run
        pytest.fail("the interrupt escaped cli.main() as a traceback")
    assert ended.value.code == 130
    out, err = capfd.readouterr()
    assert err == "compact-agent: interrupted\n"
    return out


def test_an_interrupt_while_a_usage_error_is_written_is_one_line(monkeypatch, capfd) -> None:
    def interrupted(self: OneLineUsage, file: object = None) -> None:
        raise KeyboardInterrupt  # Ctrl-C as the line is written: outside the library's own handler

    monkeypatch.setattr(OneLineUsage, "show", interrupted)
    ends_in_one_line(monkeypatch, capfd, ["--no-such-option"])


def test_an_interrupt_while_the_command_line_is_read(monkeypatch, capfd) -> None:
    """Ctrl-C as the options are parsed (inside the library's own handler, before any command runs)."""
    def interrupted(self: TyperGroup, ctx: click.Context, args: list[str]) -> list[str]:
        raise KeyboardInterrupt

    monkeypatch.setattr(TyperGroup, "parse_args", interrupted)
    ends_in_one_line(monkeypatch, capfd, ["sessions"])


def test_an_interrupt_while_a_json_print_run_is_read_is_its_result_object(monkeypatch, capfd) -> None:
    """Ctrl-C as `-p ... --output-format json` is parsed: the result object documented for Ctrl-C
    (subtype error_interrupted, signal SIGINT), not a plain error object without the signal."""
    def interrupted(self: TyperGroup, ctx: click.Context, args: list[str]) -> list[str]:
        raise KeyboardInterrupt

    monkeypatch.setattr(TyperGroup, "parse_args", interrupted)
    out = ends_in_one_line(monkeypatch, capfd, ["-p", "hi", "--output-format", "json"])
    result = json.loads(out.splitlines()[-1])
    assert (result["subtype"], result["signal"], result["error"]) == ("error_interrupted", "SIGINT", "interrupted")
    assert result["session_id"] is None and result["usage"]["requests"] == 0
