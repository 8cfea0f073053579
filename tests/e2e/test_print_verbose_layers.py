"""`-p --verbose` says what the context layers did, as the REPL does: a tool result too large for
the window moved to a file said 'context: large tool results moved to files (a preview stays)
(1 result), freed 11,884 tokens' in the REPL and nothing in print mode. The line goes to stderr
with the tool lines, as the REPL shows it (no `compact-agent: `, which marks a warning); stdout
stays the answer, or the one JSON object."""

from __future__ import annotations

import json
import re

from tests.fakes.openai_server import FakeOpenAIServer, Reply

MOVED = re.compile(r"^context: large tool results moved to files \(a preview stays\) \(1 result\), "
                   r"freed [\d,]+ tokens$", re.MULTILINE)


def numbers(req) -> Reply:
    if req.messages[-1]["role"] == "tool":
        return Reply.text("seen")
    return Reply.tools([("bash", {"command": "seq 1 6000"})])


def test_verbose_print_mode_says_a_layers_saving_on_stderr(cli) -> None:
    with FakeOpenAIServer(numbers) as server:
        args = ("-p", "show the numbers", "--model", "fake-model", "--base-url", server.base_url, "--api-key", "k",
                "--context-window", "16k", "--yes")
        verbose = cli(*args, "--verbose")
        as_json = cli(*args, "--verbose", "--output-format", "json")
        quiet = cli(*args)
    assert verbose.code == 0 and verbose.stdout == "seen\n", verbose.stdout + verbose.stderr
    assert MOVED.search(verbose.stderr), verbose.stderr
    assert as_json.code == 0 and json.loads(as_json.stdout)["result"] == "seen", as_json.stdout
    assert MOVED.search(as_json.stderr), as_json.stderr
    assert quiet.code == 0 and "context:" not in quiet.stderr, quiet.stderr  # said with --verbose only


def test_verbose_lines_are_alike(cli) -> None:
    """The tool lines had no `compact-agent: `, the layer's line had it: one trace read as two
    kinds of message. Each is the REPL's line; the prefix is a warning's, said without --verbose too."""
    with FakeOpenAIServer(numbers) as server:
        r = cli("-p", "show the numbers", "--model", "fake-model", "--base-url", server.base_url, "--api-key", "k",
                "--context-window", "16k", "--yes", "--verbose")
    assert r.code == 0, r.stderr
    lines = r.stderr.splitlines()
    assert lines[:2] == ["● bash(seq 1 6000)", "  ⎿ exit code: 0 · 6000"], r.stderr
    assert len(lines) == 3 and MOVED.fullmatch(lines[2]), r.stderr
