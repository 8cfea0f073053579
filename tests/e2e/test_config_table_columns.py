"""`compact-agent config`'s table keeps its source column in line: the value column was cut at 40
characters, so deepseek-chat's prices (`$0.28 input, $0.028 cached, $0.42 output per M tokens`, 54)
pushed their source, `the model's own (deepseek-chat)`, 14 columns right of every other row's. The
value column is as wide as the longest value where the terminal allows (a pipe: lines whole); in a
narrower one a long value wraps within its column, its source in line on the row's first line."""

from __future__ import annotations

import fcntl
import io
import os
import pty
import struct
import subprocess
import sys
import termios
from pathlib import Path

import pytest
from rich.console import Console

from compact_agent.settings_table import table
from tests.e2e.conftest import REPO, Cli
from tests.fakes.openai_server import Reply
from tests.ui.repl_driver import drive

PRICES = "$0.28 input, $0.028 cached, $0.42 output per M tokens"
OWN = "the model's own (deepseek-chat)"


def rows_of(out: str) -> list[str]:
    return out.split("\n\n", 1)[0].splitlines()  # the table, above the files' lines


def source_column(lines: list[str]) -> set[int]:
    """Where each row's source begins (the rows whose source is a word we know)."""
    return {line.rindex(src) for line in lines for src in ("default", "flag", OWN) if line.endswith(src)}


def in_terminal(cli: Cli, columns: int, *args: str) -> str:
    """The output of `compact-agent ARGS` whose stdout is a terminal `columns` wide."""
    main, child = pty.openpty()
    fcntl.ioctl(child, termios.TIOCSWINSZ, struct.pack("HHHH", 40, columns, 0, 0))
    env = {k: v for k, v in os.environ.items() if not k.endswith("_API_KEY")}
    env.update({"COMPACT_AGENT_HOME": str(cli.home), "PYTHONPATH": str(REPO / "src"), "COLUMNS": "",
                "COMPACT_AGENT_CONFIG": str(cli.home / "config.toml")})
    with subprocess.Popen([sys.executable, "-m", "compact_agent.cli", *args], cwd=cli.cwd, env=env,
                          stdin=subprocess.DEVNULL, stdout=child, stderr=subprocess.PIPE) as proc:
        os.close(child)
        out = b""
        while True:
            try:
                chunk = os.read(main, 65536)
            except OSError:  # the child's end closed: all of it was read
                break
            if not chunk:
                break
            out += chunk
        assert proc.wait(60) == 0, proc.stderr.read() if proc.stderr else ""
    os.close(main)
    return out.decode().replace("\r\n", "\n")


def check(out: str, columns: int | None) -> None:
    lines = rows_of(out)
    assert len(source_column(lines)) == 1, out
    at = next(i for i, line in enumerate(lines) if line.startswith("prices "))
    assert lines[at].endswith(OWN), out
    if columns:
        assert all(len(line) <= columns for line in lines), out
    value = lines[at][len("prices"):-len(OWN)].strip()
    for line in lines[at + 1:]:  # what wrapped, under the value
        if line[:1] != " ":
            break
        value += " " + line.strip()
    assert value == PRICES, out


def test_piped_the_lines_are_whole_and_in_line(cli: Cli) -> None:
    run = cli("--model", "deepseek-chat", "config", env={"COLUMNS": "80"})  # not a terminal's: lines whole
    assert run.code == 0, run.stderr
    check(run.stdout, None)
    assert f"{PRICES}  {OWN}" in run.stdout


@pytest.mark.parametrize("columns", [100, 140])
def test_in_a_terminal_the_prices_source_is_in_line(cli: Cli, columns: int) -> None:
    check(in_terminal(cli, columns, "--model", "deepseek-chat", "config"), columns)


def test_a_narrow_table_wraps_values_and_sources_in_their_columns() -> None:
    rows = [("model", "deepseek-chat", "flag"), ("prices", PRICES, OWN), ("base_url", "http://h/" + "x" * 40, "flag")]
    lines = table(rows, 60)
    assert lines == [
        "model     deepseek-chat                     flag",
        "prices    $0.28 input, $0.028 cached,       the model's own",
        "          $0.42 output per M tokens         (deepseek-chat)",
        "base_url  http://h/xxxxxxxxxxxxxxxxxxxxxxx  flag",  # a word longer than the room left is split in it
        "          xxxxxxxxxxxxxxxxx",
    ], lines
    assert table(rows)[1] == f"prices    {PRICES}  {OWN}"  # no width: whole


def test_an_address_stays_whole_where_the_source_column_can_give_way() -> None:
    """At 80 columns the value column was 24 wide, so `http://127.0.0.1:43267/v1` (25) showed as
    `http://127.0.0.1:43267/v` with `1` on the next line; the sources' short words wrap instead."""
    rows = [("tool_results_per_message_chars", "200000", "default"),
            ("base_url", "http://127.0.0.1:43267/v1", "flag"), ("prices", PRICES, OWN),
            ("restore_total_tokens", "50000", "default → 32,000 in the 128,000-token window")]
    lines = table(rows, 80)
    assert "base_url                        http://127.0.0.1:43267/v1  flag" in lines, lines
    assert all(len(line) <= 80 for line in lines), lines


async def test_slash_config_fits_the_terminal_too(tmp_path: Path) -> None:
    console = Console(record=True, width=100, file=io.StringIO(), force_terminal=True, color_system=None)
    run = await drive(tmp_path, lambda req: Reply.text("ok"), ["/config\r"], console=console, model="deepseek-chat")
    check(run.out[run.out.index("model "):], 100)
