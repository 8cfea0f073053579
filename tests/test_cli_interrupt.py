"""`cli.main()` ends a Ctrl-C in one line and exit code 130. The command-line library catches an
interrupt only while a command is parsed and run (it exits 130 itself, silently); one that lands
outside that, as while a usage error is being written, reaches `main()`'s own handler, which is
therefore not dead code: without it the interrupt ended in a traceback."""

from __future__ import annotations

import sys

import click
import pytest
from typer.core import TyperGroup

from compact_agent import cli
from compact_agent.cli_help import OneLineUsage


def ends_in_one_line(monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], argv: list[str]) -> None:
    """`cli.main()` run on `argv` (with an interrupt planted by the caller) exits 130 with one line."""
    monkeypatch.setattr(sys, "argv", ["compact-agent", *argv])
    try:
        with pytest.raises(SystemExit) as ended:
            cli.main()
    except KeyboardInterrupt:  # not let through to pytest, which would stop the whole run
        pytest.fail("the interrupt escaped cli.main() as a traceback")
    assert ended.value.code == 130
    assert capsys.readouterr().err == "compact-agent: interrupted\n"


def test_an_interrupt_while_a_usage_error_is_written_is_one_line(monkeypatch, capsys) -> None:
    def interrupted(self: OneLineUsage, file: object = None) -> None:
        raise KeyboardInterrupt  # Ctrl-C as the line is written: outside the library's own handler

    monkeypatch.setattr(OneLineUsage, "show", interrupted)
    ends_in_one_line(monkeypatch, capsys, ["--no-such-option"])


def test_an_interrupt_while_the_command_line_is_read(monkeypatch, capsys) -> None:
    """Ctrl-C as the options are parsed (inside the library's own handler, before any command runs)."""
    def interrupted(self: TyperGroup, ctx: click.Context, args: list[str]) -> list[str]:
        raise KeyboardInterrupt

    monkeypatch.setattr(TyperGroup, "parse_args", interrupted)
    ends_in_one_line(monkeypatch, capsys, ["sessions"])
