"""A `-p` run ended by SIGTERM or SIGHUP while a hook runs kills the hook's command, with the
processes it started, as it kills a bash command (test_print_terminated_command.py). A hook runs in
its own process group, so that its timeout kills what it started too, which the signal to the agent
never reached: a SessionStart hook that waited on a server went on with parent PID 1."""

from __future__ import annotations

import signal

import pytest

from tests.fakes.openai_server import FakeOpenAIServer, Reply

from .test_print_prompt_saved_early import fake
from .test_print_terminated_command import COMMAND, signalled_once_running


@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGHUP])
def test_a_run_terminated_during_a_hook_kills_its_command(cli, sig):
    (cli.home).mkdir(parents=True, exist_ok=True)
    (cli.home / "config.toml").write_text(f'[hooks]\nSessionStart = [{{command = "{COMMAND}", timeout = 600}}]\n')
    with FakeOpenAIServer(lambda req: Reply.text("ok")) as server:
        code, err = signalled_once_running(cli, sig, "-p", "hello", *fake(server))
        assert code == -sig, err.decode()
        assert err.decode().startswith(f"compact-agent: terminated ({sig.name})")
        assert server.requests == []  # the hook ran before the turn's request
