"""A `-p` run ended by SIGTERM or SIGHUP while its bash tool runs a command kills that command, and
saves what the turn had. The command has its own process group, which the signal to the agent
never reached: it went on with parent PID 1 (Esc and Ctrl-C killed it, a `kill` did not). And the
model's answer with the tool call was lost: `-c` warned that the message "got no answer before the
last run ended", though the model had answered. Now the answer is saved with a result saying the
command was stopped, `-c` says so, and the next request carries both, a valid pair."""

from __future__ import annotations

import os
import signal
import time
from pathlib import Path

import pytest

from tests.fakes.openai_server import FakeOpenAIServer, Reply
from tests.processes import ended

from .held_request import start
from .test_print_prompt_saved_early import fake

#: A command with a child that ignores SIGTERM and SIGHUP, its pid written once it runs.
COMMAND = "trap '' TERM HUP; sleep 123 & echo $! > child.pid; wait"


def answer(req) -> Reply:
    return Reply.text("ok") if req.last_user_text() == "go on" else Reply.tools([("bash", {"command": COMMAND})])


def written_pid(path: Path, proc, timeout: float = 60) -> int:
    """The pid the command wrote to `path`, once it is whole (the run goes on meanwhile)."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline and proc.poll() is None:
        text = path.read_text() if path.exists() else ""
        if text.endswith("\n"):
            return int(text)
        time.sleep(0.01)
    raise AssertionError(f"the command never ran: {proc.stderr.read().decode() if proc.poll() is not None else ''}")


def signalled_once_running(cli, sig: int, *args: str) -> tuple[int, bytes]:
    """`compact-agent ARGS` sent `sig` once its command (or hook) has written its child's pid; its
    exit code and stderr. Fails if that child outlived it (killed then, never left behind)."""
    proc = start(cli, *args)
    child = None
    try:
        child = written_pid(cli.cwd / "child.pid", proc)
        proc.send_signal(sig)
        _, err = proc.communicate(timeout=30)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.communicate()
        if child is not None and not ended(child):
            os.kill(child, signal.SIGKILL)  # never left behind by the test itself
            pytest.fail(f"the command's child outlived the agent: {proc.returncode}")
    return proc.returncode, err


@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGHUP])
def test_a_run_terminated_during_a_command_kills_it_and_saves_the_call(cli, sig):
    with FakeOpenAIServer(answer) as server:
        code, err = signalled_once_running(cli, sig, "-p", "run the command", "--yes", *fake(server))
        assert code == -sig
        assert err.decode() == f"compact-agent: terminated ({sig.name}); the session is saved: " \
            "`compact-agent -c -p ...` continues it\n"
        again = cli("-c", "-p", "go on", *fake(server))
    assert again.code == 0, again.stderr
    assert "got no answer" not in again.stderr
    assert f"the last run was ended by {sig.name} while the model's tool calls ran: bash did not finish (its " \
        "command was killed with the processes it started)" in again.stderr
    sent = server.requests[-1].messages
    [call] = [c for m in sent for c in m.get("tool_calls") or []]
    [result] = [m for m in sent if m["role"] == "tool"]
    assert call["function"]["name"] == "bash" and result["tool_call_id"] == call["id"]
    assert result["content"] == f"[compact-agent was ended by {sig.name} before this call finished: its " \
        "command was killed with the processes it started]"
    assert not server.rejected and len(server.requests) == 2
