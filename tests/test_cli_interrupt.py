"""`cli.main()` ends a Ctrl-C in one line and exit code 130. The command-line library catches an
interrupt only while a command is parsed and run (it exits 130 itself, silently); one that lands
outside that, as while a usage error is being written, reaches `main()`'s own handler, which is
therefore not dead code: without it the interrupt ended in a traceback."""

from __future__ import annotations

import sys

import pytest

from compact_agent import cli
from compact_agent.cli_help import OneLineUsage


def test_an_interrupt_while_a_usage_error_is_written_is_one_line(monkeypatch, capsys) -> None:
    def interrupted(self: OneLineUsage, file: object = None) -> None:
        raise KeyboardInterrupt  # Ctrl-C as the line is written: outside the library's own handler

    monkeypatch.setattr(OneLineUsage, "show", interrupted)
    monkeypatch.setattr(sys, "argv", ["compact-agent", "--no-such-option"])
    try:
        with pytest.raises(SystemExit) as ended:
            cli.main()
    except KeyboardInterrupt:  # not let through to pytest, which would stop the whole run
        pytest.fail("the interrupt escaped cli.main() as a traceback")
    assert ended.value.code == 130
    assert capsys.readouterr().err == "compact-agent: interrupted\n"
