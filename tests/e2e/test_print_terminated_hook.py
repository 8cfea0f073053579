"""A `-p` run ended by SIGTERM or SIGHUP while a hook runs kills the hook's command, with the
processes it started, as it kills a bash command (test_print_terminated_command.py). A hook runs in
its own process group, so that its timeout kills what it started too, which the signal to the agent
never reached: a SessionStart hook that waited on a server went on with parent PID 1."""

from __future__ import annotations

import os
import signal

import pytest

from tests.fakes.openai_server import FakeOpenAIServer, Reply

from .held_request import start
from .test_print_prompt_saved_early import fake
from .test_print_terminated_command import COMMAND, ended, written_pid


@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGHUP])
def test_a_run_terminated_during_a_hook_kills_its_command(cli, sig):
    (cli.home).mkdir(parents=True, exist_ok=True)
    (cli.home / "config.toml").write_text(f'[hooks]\nSessionStart = [{{command = "{COMMAND}", timeout = 600}}]\n')
    with FakeOpenAIServer(lambda req: Reply.text("ok")) as server:
        proc = start(cli, "-p", "hello", *fake(server))
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
                pytest.fail("the hook's child outlived the agent")
        assert proc.returncode == -sig, err.decode()
        assert err.decode().startswith(f"compact-agent: terminated ({sig.name})")
        assert server.requests == []  # the hook ran before the turn's request
