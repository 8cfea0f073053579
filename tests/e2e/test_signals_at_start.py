"""A signal in the first second of `compact-agent -p`, while Python loads the command line (typer,
pydantic: half a second or more), ends the run as one later does: one line on stderr and, with
`--output-format json`, a result object as the last line of stdout. SIGTERM and SIGHUP ended it
silently (killed by the signal, nothing written), Ctrl-C with a Python traceback.

The command is run as installed (`compact_agent.__main__`, what the `compact-agent` script calls)
and stops at a known point: the import of `typer`, the first thing the command line loads, is held
(held_import.py: a finder put first in sys.meta_path from a sitecustomize.py on PYTHONPATH writes a
file saying it got there, then waits); the test sends the signal once that file is there."""

from __future__ import annotations

import json
import signal
from pathlib import Path

import pytest

from .held_import import cli_argv, held_env, signalled_at_import

PRINT = ("-p", "hello", "--model", "fake-model", "--base-url", "http://127.0.0.1:9/v1", "--api-key", "sk-test")


def signalled_at(tmp_path: Path, sig: signal.Signals, *args: str, module: str = "typer",
                 entry: str = "compact_agent") -> tuple[int, str, str]:
    """`python -m ENTRY ARGS` held at the import of `module`, sent `sig` there: exit, stdout, stderr."""
    home, cwd, ready = tmp_path / "home", tmp_path / "project", tmp_path / "ready"
    cwd.mkdir(exist_ok=True)
    env = held_env(tmp_path / "hold", home, module, ready)
    result = signalled_at_import(cli_argv(*args, entry=entry), cwd, env, ready, sig)
    assert not list(home.glob("projects/*/*.jsonl"))  # no session was made: the prompt was not read yet
    return result


def nothing_spent(result: dict) -> None:
    """The spending fields every result object has, for a run that made no request."""
    assert result["num_turns"] == 0 and result["total_cost_usd"] == 0.0, result
    assert result["usage"]["requests"] == 0 and result["compactions"] == [], result
    assert result["session_id"] is None and result["result"] is None and result["is_error"] is True, result


@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGHUP], ids=["SIGTERM", "SIGHUP"])
def test_terminated_while_the_command_line_loads_says_so(tmp_path: Path, sig: signal.Signals) -> None:
    code, out, err = signalled_at(tmp_path, sig, *PRINT)
    assert code == -sig, (code, out, err)  # ended by the signal, as later: 143 or 129 in a shell
    assert (err, out) == (f"compact-agent: terminated ({sig.name})\n", "")


@pytest.mark.parametrize("output", ["json", "stream-json"])
def test_terminated_while_loading_ends_stdout_with_a_result(tmp_path: Path, output: str) -> None:
    code, out, err = signalled_at(tmp_path, signal.SIGTERM, *PRINT, "--output-format", output)
    assert (code, err) == (-signal.SIGTERM, "compact-agent: terminated (SIGTERM)\n"), out
    result = json.loads(out.splitlines()[-1])
    assert (result["type"], result["subtype"], result["signal"]) == ("result", "error_terminated", "SIGTERM")
    assert result["error"] == "terminated (SIGTERM)"
    nothing_spent(result)


@pytest.mark.parametrize("args", [PRINT, ("sessions",)], ids=["print", "sessions"])
def test_ctrl_c_while_the_command_line_loads_is_one_line(tmp_path: Path, args: tuple[str, ...]) -> None:
    code, out, err = signalled_at(tmp_path, signal.SIGINT, *args)
    assert (code, err, out) == (130, "compact-agent: interrupted\n", "")


def test_ctrl_c_while_loading_ends_stdout_with_a_result(tmp_path: Path) -> None:
    code, out, err = signalled_at(tmp_path, signal.SIGINT, *PRINT, "--output-format", "json")
    assert (code, err) == (130, "compact-agent: interrupted\n"), out
    result = json.loads(out.splitlines()[-1])
    assert (result["type"], result["subtype"], result["signal"]) == ("result", "error_interrupted", "SIGINT")
    assert result["error"] == "interrupted"
    nothing_spent(result)


def test_ctrl_c_before_print_mode_takes_over_is_the_interrupted_result(tmp_path: Path) -> None:
    """Ctrl-C after the command line is loaded, while it is being checked (the command-line
    library's part, before print mode's own handler): the result object documented for Ctrl-C, not
    a plain error. Run through `compact_agent.cli` itself, which arms nothing before."""
    code, out, err = signalled_at(tmp_path, signal.SIGINT, *PRINT, "--output-format", "json",
                                  module="compact_agent.agent.run.options", entry="compact_agent.cli")
    assert (code, err) == (130, "compact-agent: interrupted\n"), out
    result = json.loads(out.splitlines()[-1])
    assert (result["subtype"], result["signal"], result["error"]) == ("error_interrupted", "SIGINT", "interrupted")
    nothing_spent(result)


@pytest.mark.parametrize(("args", "expected"), [
    (["-p", "hi"], (True, False)),
    (["-yp", "hi", "--output-format", "json"], (True, True)),
    (["--output-format=stream-json", "--print", "hi"], (True, True)),
    (["-p", "hi", "--output-format", "text"], (True, False)),
    (["--output-format", "json", "hi"], (False, False)),  # the REPL's error, not print mode
    (["sessions"], (False, False)),
    (["--", "-p"], (False, False)),  # after `--`: the query
])
def test_print_mode_is_read_before_the_command_line_loads(args: list[str], expected: tuple[bool, bool]) -> None:
    from compact_agent.__main__ import print_args

    assert print_args(args) == expected
