"""A FIFO or a link to /dev/zero in the place of a file the agent keeps beside a session
(its plan, what was read, the layers' decisions, the usage of its requests, the checkpoint list,
the event log) or of the server windows it learned: `--continue` answers with a warning line for
what it could not read, where a FIFO made it wait for a writer for ever (reading, or opening the
usage file or the event log to append) and /dev/zero filled memory."""

from __future__ import annotations

from pathlib import Path

import pytest

from compact_agent.agent.run.server_windows import FILE, FOLDER
from tests.fakes.openai_server import FakeOpenAIServer, Reply

from .common import answered_session, cli, not_a_file
from .harness import Zygote

SIDE = ("usage.jsonl", "layers.json", "read_state.json", "todos.json", "checkpoints/checkpoints.json", "events.jsonl")


@pytest.mark.parametrize("kind", ["fifo", "/dev/zero"])
def test_continue_answers_whatever_is_in_their_place(tmp_path: Path, zygote: Zygote, kind: str) -> None:
    home, cwd = tmp_path / "home", tmp_path / "project"
    with FakeOpenAIServer(lambda req: Reply.text("answered"), window=9_000) as server:
        s = answered_session(home, cwd, server)
        for name in SIDE:
            not_a_file(s.store.dir / name, kind)
        not_a_file(home / FOLDER / FILE, kind)
        run = cli(home, cwd, "-c", "-p", "/cost", "--model", "fake-model", "--base-url", server.base_url,
                  "--context-window", "9000", "--api-key", "k", zygote=zygote, timeout=30)
        again = cli(home, cwd, "-c", "-p", "again", "--model", "fake-model", "--base-url", server.base_url,
                    "--context-window", "9000", "--api-key", "k", "--yes", zygote=zygote, timeout=30)
    assert run.code == 0 and "requests" in run.stdout, run
    assert again.code == 0 and again.stdout == "answered\n", again
    for line in (run.stderr + again.stderr).splitlines():
        assert line.startswith("compact-agent: warning: ") and "Error" not in line, line
