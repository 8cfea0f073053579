"""`compact-agent -p -` started with its stdin closed (`<&-`, a service or a daemon that gives it
none) is refused in one line, as an empty stdin is; it ended in a traceback, `AttributeError:
'NoneType' object has no attribute 'read'`. A prompt given as an argument runs as ever."""

from __future__ import annotations

import os
import subprocess
import sys

from tests.fakes.openai_server import FakeOpenAIServer, Reply

from .conftest import REPO
from .test_print_cli import fake


def closed_stdin(cli, *args: str) -> subprocess.CompletedProcess[str]:
    """`compact-agent ARGS <&-`: a fresh interpreter, whose sys.stdin is then None."""
    env = {k: v for k, v in os.environ.items() if not k.endswith("_API_KEY")}
    env.update({"COMPACT_AGENT_HOME": str(cli.home), "PYTHONPATH": str(REPO / "src"),
                "COMPACT_AGENT_CONFIG": str(cli.home / "config.toml")})
    return subprocess.run([sys.executable, "-m", "compact_agent.cli", *args], cwd=cli.cwd, env=env, text=True,
                          capture_output=True, timeout=120, preexec_fn=lambda: os.close(0))


def test_a_closed_stdin_is_no_prompt_and_no_traceback(cli):
    with FakeOpenAIServer(lambda req: Reply.text("noted")) as server:
        read = closed_stdin(cli, "-p", "-", *fake(server))
        given = closed_stdin(cli, "-p", "hello", *fake(server))
    assert read.returncode == 2, read.stderr
    assert read.stderr == ('compact-agent: -p - reads the prompt from stdin, and stdin was empty (or give it: '
                           'compact-agent -p "QUERY")\n')
    assert given.returncode == 0 and given.stdout == "noted\n", given.stderr
    assert len(server.requests) == 1


def test_the_repl_with_a_closed_stdin_says_it_needs_a_terminal(cli):
    out = closed_stdin(cli, "hello")
    assert out.returncode == 2
    assert out.stderr == ('compact-agent: the REPL needs a terminal on stdin; for a script or a pipe use -p: '
                          'echo "QUERY" | compact-agent -p\n')
