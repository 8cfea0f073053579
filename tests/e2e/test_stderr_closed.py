"""A run started with stderr closed (`2>&-`, a service that gives it none) does its work, what it
would say there going nowhere. A note (a `--base-url` other than the one the session remembers)
ended it with exit 1 and no answer, nothing said; and the first file it kept open took the number
2, the session's lock file, where a child process's error output then went."""

from __future__ import annotations

import os
import subprocess
import sys

from tests.fakes.openai_server import FakeOpenAIServer, Reply, tool_results

from .conftest import REPO


def closed_stderr(cli, *args: str) -> subprocess.CompletedProcess[str]:
    """`compact-agent ARGS 2>&-`: a fresh interpreter, whose sys.stderr is then None."""
    env = {k: v for k, v in os.environ.items() if not k.endswith("_API_KEY")}
    env.update({"COMPACT_AGENT_HOME": str(cli.home), "PYTHONPATH": str(REPO / "src"),
                "COMPACT_AGENT_CONFIG": str(cli.home / "config.toml")})
    return subprocess.run([sys.executable, "-m", "compact_agent.cli", *args], cwd=cli.cwd, env=env, text=True,
                          stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, timeout=120,
                          preexec_fn=lambda: os.close(2))


def at(server: FakeOpenAIServer) -> tuple[str, ...]:
    return ("--model", "fake-model", "--base-url", server.base_url, "--api-key", "k")


def test_a_note_to_a_closed_stderr_does_not_end_the_run(cli):
    with FakeOpenAIServer(lambda req: Reply.text("noted")) as first, \
            FakeOpenAIServer(lambda req: Reply.text("answered")) as second:
        assert cli("-p", "remember PELICAN", *at(first)).code == 0
        said = cli("-c", "-p", "/status", *at(second))
        assert "which the session remembers" in said.stderr  # the note this run writes to its stderr
        out = closed_stderr(cli, "-c", "-p", "and HERON", *at(second))
        assert len(second.requests) == 1
    assert out.returncode == 0 and out.stdout == "answered\n"


def test_a_child_process_never_writes_into_the_agents_files(cli):
    def reply(req):
        if not tool_results(req):
            return Reply.tools([("bash", {"command": "readlink /proc/$PPID/fd/2"})])
        return Reply.text(str(tool_results(req)[-1]["content"]))

    with FakeOpenAIServer(reply) as server:
        out = closed_stderr(cli, "-p", "where does stderr go?", "-y", *at(server))
    assert out.returncode == 0
    assert out.stdout.splitlines()[0] == "/dev/null", out.stdout
