"""`compact-agent --verbose` without -p was accepted without a word, though only print mode reads
it (the REPL shows each tool call, result and compaction anyway). It now says so in one warning line
on stderr and the run goes on; with -p it is said nothing."""

from __future__ import annotations

from pathlib import Path

from tests.fakes.openai_server import FakeOpenAIServer, Reply
from tests.ui.pty_driver import Terminal

WARNING = ("compact-agent: warning: --verbose applies to print mode (-p) only; the REPL shows tool calls, "
           "results and compactions without it\n")


def test_verbose_without_p_is_said_and_the_run_goes_on(cli) -> None:
    run = cli("--verbose", "hi", "--model", "fake-model", "--base-url", "http://127.0.0.1:9/v1", "--api-key", "k")
    lines = run.stderr.splitlines(keepends=True)
    assert lines[0] == WARNING, run.stderr
    assert run.code == 2 and "the REPL needs a terminal on stdin" in lines[1], run.stderr  # what comes next


def test_verbose_with_p_says_nothing_of_it(cli) -> None:
    with FakeOpenAIServer(lambda req: Reply.text("ANSWERED")) as server:
        run = cli("-p", "--verbose", "hi", "--model", "fake-model", "--base-url", server.base_url, "--api-key", "k")
    assert run.code == 0 and run.stdout == "ANSWERED\n", run.stdout + run.stderr
    assert "--verbose" not in run.stderr, run.stderr


def test_on_a_terminal_the_repl_starts_after_the_warning(tmp_path: Path) -> None:
    with FakeOpenAIServer(lambda req: Reply.text("ANSWERED")) as server:
        term = Terminal(tmp_path, server.base_url, "--verbose")
        try:
            said = term.read_until("--verbose applies to print mode (-p) only")
            at = term.prompt(term.read_until("/help for commands", said))
            term.type("hello\r")
            term.prompt(term.read_until("ANSWERED", at))
            assert term.finish() == 0
        finally:
            term.close()
