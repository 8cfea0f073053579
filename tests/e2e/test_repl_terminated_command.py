"""The REPL ended by SIGHUP (its terminal window closed) or SIGTERM while its bash tool runs a
command kills that command and saves the turn's tool call with its result, as `-p` does
(test_print_terminated_command.py): the command went on with parent PID 1, and `-c` said the
message got no answer."""

from __future__ import annotations

import os
import signal

import pytest

from tests.fakes.openai_server import FakeOpenAIServer
from tests.ui.pty_driver import Terminal

from .test_print_prompt_saved_early import fake
from .test_print_terminated_command import answer, ended, written_pid


@pytest.mark.parametrize("sig", [signal.SIGHUP, signal.SIGTERM])
def test_a_repl_terminated_during_a_command_kills_it_and_saves_the_call(cli, tmp_path, sig):
    with FakeOpenAIServer(answer) as server:
        term = Terminal(tmp_path, server.base_url, "--yes")
        child = None
        try:
            term.prompt(term.read_until("/help for commands"))
            term.type("run the command\r")
            child = written_pid(term.cwd / "child.pid", term.proc)
            term.proc.send_signal(sig)
            assert term.proc.wait(30) == -sig
            term.drain()
            assert f"compact-agent: terminated ({sig.name}); the session is saved" in term.text()
        finally:
            if child is not None and not ended(child):
                os.kill(child, signal.SIGKILL)  # never left behind by the test itself
                pytest.fail("the command's child outlived the agent")
            term.close()
        again = cli("-c", "-p", "go on", *fake(server))
    assert again.code == 0, again.stderr
    assert "got no answer" not in again.stderr
    assert f"the last run was ended by {sig.name} while the model's tool calls ran: bash did not finish" \
        in again.stderr
    assert not server.rejected and len(server.requests) == 2
