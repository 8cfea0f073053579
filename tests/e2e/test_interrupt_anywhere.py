"""Ctrl-C ends every command the same way: `compact-agent: interrupted` on stderr, exit 130. In
`sessions`, `config`, and the seconds before the REPL or a `-p` run takes over, the command-line
library caught the interrupt and exited 130 without a word, where a `-p` run said that line.

Each run stops at a known point, an import it makes on the way (held_import.py: a finder put first
in sys.meta_path holds it, after writing a file that says it is there); the test sends SIGINT once
that file is."""

from __future__ import annotations

import signal

import pytest

from .conftest import Cli
from .held_import import cli_argv, held_env, signalled_at_import


def interrupted_at(cli: Cli, module: str, *args: str) -> tuple[int, str, str]:
    """Runs `compact-agent ARGS` held at the import of `module`, sends SIGINT there: exit, stdout, stderr."""
    ready = cli.home.parent / "ready"
    env = held_env(cli.home.parent / "hold", cli.home, module, ready)
    return signalled_at_import(cli_argv(*args), cli.cwd, env, ready, signal.SIGINT)


@pytest.mark.parametrize(("args", "module"), [
    (("sessions",), "compact_agent.agent.run.options"),  # listing this directory's sessions
    (("config",), "compact_agent.settings_in_use"),  # the settings read, the table not yet written
    ((), "compact_agent.agent.run.options"),  # the REPL, before it takes over
    (("-p", "hello", "--model", "fake-model", "--base-url", "http://127.0.0.1:9/v1"),
     "compact_agent.agent.run.options"),  # a -p run, before its own handler is in place
], ids=["sessions", "config", "repl-start", "print-start"])
def test_ctrl_c_says_interrupted_and_exits_130(cli: Cli, args: tuple[str, ...], module: str) -> None:
    code, out, err = interrupted_at(cli, module, *args)
    assert (code, err) == (130, "compact-agent: interrupted\n"), (out, err)
    assert out == ""


def test_with_json_output_a_script_reads_why(cli: Cli) -> None:
    """A `-p --output-format json` run interrupted before its turn says so in its error object too."""
    code, out, err = interrupted_at(cli, "compact_agent.agent.run.options", "-p", "hello", "--output-format", "json",
                                    "--model", "fake-model", "--base-url", "http://127.0.0.1:9/v1")
    assert (code, err) == (130, "compact-agent: interrupted\n")
    assert '"interrupted"' in out, out
