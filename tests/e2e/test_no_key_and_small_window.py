"""With no API key and a `--context-window` too small for the tools, only the key was said: given
the key, the next run was refused again, for the window. Both are said now, each in its line, before
the run ends (exit 2, bad usage); either alone is said as before."""

from __future__ import annotations

import pytest

KEY = "compact-agent: DEEPSEEK_API_KEY is not set (or pass --api-key, or --base-url for another server)\n"


def window_line(stderr: str) -> str:
    [line] = [line for line in stderr.splitlines(keepends=True) if "-token context window cannot hold" in line]
    return line


@pytest.mark.parametrize("mode", [("-p",), ()])
def test_both_are_said(cli, mode: tuple[str, ...]) -> None:
    run = cli(*mode, "hi", "--model", "deepseek-chat", "--context-window", "1000")
    assert run.code == 2 and run.stdout == "", run.stdout + run.stderr
    lines = run.stderr.splitlines(keepends=True)
    assert len(lines) == 2 and lines[0] == KEY, run.stderr
    assert lines[1].startswith("compact-agent: a 1,000-token context window cannot hold") \
        and lines[1].endswith("(--context-window)\n"), run.stderr
    assert cli.sessions() == []  # nothing ran, nothing saved


def test_each_alone_is_said_as_before(cli) -> None:
    no_key = cli("-p", "hi", "--model", "deepseek-chat", "--context-window", "64k")
    assert no_key.code == 1 and no_key.stderr.endswith(KEY) and "context window" not in no_key.stderr, no_key.stderr
    small = cli("-p", "hi", "--model", "deepseek-chat", "--context-window", "1000", "--api-key", "k")
    assert small.code == 2 and KEY not in small.stderr and window_line(small.stderr), small.stderr
    both = cli("-p", "hi", "--model", "deepseek-chat", "--context-window", "1000")
    assert window_line(both.stderr) == window_line(small.stderr)  # the same words, the same minimum
