"""`-p` ended by SIGTERM or SIGHUP says in one line that its session is saved and how to go on, as a
failure or `--max-turns` does; it said nothing, and exited as killed. It still exits as killed by
the signal (143 or 129 in a shell), and `-c` goes on with the message its request was carrying."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import threading

import pytest

from tests.fakes.openai_server import FakeOpenAIServer, Reply, user_messages
from tests.ui.test_typed_prompt_kill import saved

from .conftest import REPO
from .test_print_prompt_saved_early import fake, held_run
from .test_resume_after_failures import UNANSWERED

LINE = "compact-agent: terminated ({}); the session is saved: `compact-agent -c -p ...` continues it\n"


def start(cli, *args: str) -> subprocess.Popen:
    env = {k: v for k, v in os.environ.items() if not k.endswith("_API_KEY")}
    env.update({"COMPACT_AGENT_HOME": str(cli.home), "COMPACT_AGENT_CONFIG": str(cli.home / "config.toml"),
                "PYTHONPATH": str(REPO / "src")})
    return subprocess.Popen([sys.executable, "-m", "compact_agent.cli", *args], cwd=cli.cwd, env=env,
                            stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.PIPE)


@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGHUP])
def test_a_run_terminated_during_its_request_says_its_session_is_saved(cli, sig):
    arrived, release = threading.Event(), threading.Event()

    def held(req) -> Reply:
        if "remember HERON" in req.last_user_text():
            arrived.set()
            release.wait(60)
        return Reply.text("ok")

    with FakeOpenAIServer(held) as server:
        proc = start(cli, "-p", "remember HERON", *fake(server))
        try:
            assert arrived.wait(60), proc.stderr.read() if proc.poll() is not None else "no request"
            proc.send_signal(sig)
            out, err = proc.communicate(timeout=30)
        finally:
            release.set()
            if proc.poll() is None:
                proc.kill()
                proc.communicate()
        assert proc.returncode == -sig  # killed by it, as before: 128 + its number in a shell
        assert err.decode() == LINE.format(sig.name) and out == b""
        again = cli("-c", "-p", "go on", *fake(server))
    assert again.code == 0, again.stderr
    assert "1 message you typed got no answer before the last run ended" in again.stderr
    assert [m["content"] for m in user_messages(server.requests[-1])] == ["remember HERON", "go on"]


def test_a_run_terminated_while_starting_says_it_too(cli):
    with FakeOpenAIServer(lambda req: Reply.text("ok")) as server:
        proc = held_run(cli, "-p", "remember PELICAN", *fake(server))
        try:
            saved(cli.home, "remember PELICAN")
            proc.send_signal(signal.SIGTERM)
            _, err = proc.communicate(timeout=30)
        finally:
            if proc.poll() is None:
                proc.kill()
                proc.communicate()
        assert proc.returncode == -signal.SIGTERM and err.decode() == LINE.format("SIGTERM")
        again = cli("-c", "-p", "go on", *fake(server))
    assert UNANSWERED in again.stderr and again.code == 0
