"""Stopping a `-p` run by a signal at a known point, for the tests of what it then says and saves:
while the fake server holds its request (`terminated`), or while it starts, its prompt saved and no
request sent (`stopped_while_starting`)."""

from __future__ import annotations

import os
import signal
import threading

from tests.fakes.openai_server import FakeOpenAIServer, Reply
from tests.forked_cli import Piped
from tests.ui.test_typed_prompt_kill import saved

from .conftest import REPO
from .test_print_prompt_saved_early import fake, held_run


def start(cli, *args: str) -> Piped:
    """`compact-agent ARGS` forked from the zygote, stdout and stderr pipes (Popen's calls)."""
    env = {k: v for k, v in os.environ.items() if not k.endswith("_API_KEY")}
    env.update({"COMPACT_AGENT_HOME": str(cli.home), "COMPACT_AGENT_CONFIG": str(cli.home / "config.toml"),
                "PYTHONPATH": str(REPO / "src")})
    return Piped(list(args), env, cli.cwd)


def held_server() -> tuple[FakeOpenAIServer, threading.Event, threading.Event]:
    """A server that holds the request saying "remember HERON" until `release` (`arrived` once it came)."""
    arrived, release = threading.Event(), threading.Event()

    def held(req) -> Reply:
        if "remember HERON" in req.last_user_text():
            arrived.set()
            release.wait(60)
        return Reply.text("ok")

    return FakeOpenAIServer(held), arrived, release


def terminated(cli, sig: signal.Signals, *args: str) -> tuple[int, list[str], str]:
    """Runs `-p "remember HERON" ARGS`, sends `sig` while its request is held: exit, stdout lines, stderr."""
    server, arrived, release = held_server()
    return signalled(cli, server, arrived, release, sig, "-p", "remember HERON", *args)


def signalled(cli, server: FakeOpenAIServer, arrived: threading.Event, release: threading.Event,
              sig: signal.Signals, *argv: str) -> tuple[int, list[str], str]:
    """Runs `ARGV` against `server`, sends `sig` once `arrived` is set (the server holding a request until
    `release`): exit, stdout lines, stderr."""
    with server:
        proc = start(cli, *argv, *fake(server))
        try:
            assert arrived.wait(60), proc.stderr.read() if proc.poll() is not None else "no request"
            proc.send_signal(sig)
            out, err = proc.communicate(timeout=30)
        finally:
            release.set()
            if proc.poll() is None:
                proc.kill()
                proc.communicate()
    return proc.returncode, out.decode().splitlines(), err.decode()


def stopped_while_starting(cli, sig: signal.Signals, prompt: str, *args: str) -> tuple[int, str]:
    """Runs `-p PROMPT ARGS` held while it starts, sends `sig` once the prompt is saved: exit, stderr."""
    proc = held_run(cli, "-p", prompt, *args)
    try:
        saved(cli.home, prompt)
        proc.send_signal(sig)
        _, err = proc.communicate(timeout=30)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.communicate()
    return proc.returncode, err.decode()
