"""An MCP server's program ends with the agent however the agent ends. MCP's stdio client starts it
as the leader of its own session, which a SIGTERM or SIGHUP to the agent never reaches (the agent
ends at once, no closing runs): a server busy in a tool call went on with parent PID 1, while a
hook's or a bash command's group was killed. Its group is now killed as theirs are."""

from __future__ import annotations

import os
import signal
import sys
from pathlib import Path

import pytest

from tests.fakes.openai_server import FakeOpenAIServer, Reply, tool_results
from tests.processes import ended

from .held_request import start
from .test_print_prompt_saved_early import fake
from .test_print_terminated_command import written_pid

SERVER = str(Path(__file__).resolve().parents[1] / "agent" / "mcp_script_server.py")


@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGHUP])
def test_a_server_busy_in_a_call_ends_with_the_agent(cli, sig):
    pid_file = cli.cwd / "server.pid"
    cli.home.mkdir(parents=True, exist_ok=True)
    (cli.home / "config.toml").write_text(
        f'[mcp_servers.t]\ncommand = {sys.executable!r}\nargs = [{SERVER!r}]\nenv = {{ PID_FILE = {str(pid_file)!r} }}\n'
        .replace("'", '"'))
    with FakeOpenAIServer(lambda req: Reply.text("ok") if tool_results(req) else Reply.tools([("t_hang", {})])) as server:
        proc = start(cli, "-p", "hang", "--yes", *fake(server))
        child = None
        try:
            child = written_pid(pid_file, proc)
            proc.send_signal(sig)
            proc.communicate(timeout=30)
            assert proc.returncode == -sig
            assert ended(child), "the MCP server's program outlived the agent"
        finally:  # the server first: one left behind holds the agent's pipes, and a read to their end never ends
            if child is not None and not ended(child, 0):
                os.kill(child, signal.SIGKILL)  # never left behind by the test itself
            if proc.poll() is None:
                proc.kill()
            proc.communicate(timeout=30)
