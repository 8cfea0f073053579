"""A `-p` prompt is saved the moment the command line is read, as the REPL saves a typed line when
Enter is pressed: a run interrupted while it starts (Ctrl-C, SIGTERM: the seconds of imports, MCP
servers and hooks before the first request) lost it, and `-c` went on without it. Now `-c` shows it,
typed and unanswered, and sends it with the next message. A run that cannot reach the model keeps it
the same way; one refused as bad usage when its session opens takes it back."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from compact_agent.session.store import load_session_file
from tests.fakes.openai_server import FakeOpenAIServer, Reply, user_messages
from tests.ui.pty_driver import REPO
from tests.ui.test_startup import GATE
from tests.ui.test_typed_prompt_kill import saved


def fake(server: FakeOpenAIServer) -> tuple[str, ...]:
    return ("--model", "fake-model", "--base-url", server.base_url, "--api-key", "k")


def held_run(cli, *args: str, stdin: bytes | None = None) -> subprocess.Popen:
    """`compact-agent ARGS` whose start-up stops at pydantic-ai's import (it never comes)."""
    hook = cli.home.parent / "hook"
    hook.mkdir(exist_ok=True)
    (hook / "sitecustomize.py").write_text(GATE)
    env = {k: v for k, v in os.environ.items() if not k.endswith("_API_KEY")}
    env.update({"COMPACT_AGENT_HOME": str(cli.home), "COMPACT_AGENT_CONFIG": str(cli.home / "config.toml"),
                "PYTHONPATH": f"{hook}:{REPO / 'src'}", "GATE": str(cli.home.parent / "never")})
    source = cli.home.parent / "stdin"
    source.write_bytes(stdin or b"")
    with source.open("rb") as given:
        return subprocess.Popen([sys.executable, "-m", "compact_agent.cli", *args], cwd=cli.cwd, env=env,
                                stdin=given if stdin is not None else subprocess.DEVNULL,
                                stdout=subprocess.PIPE, stderr=subprocess.PIPE)


def said(path: Path) -> list[str]:
    return [str(p.content) for m in load_session_file(path).messages for p in m.parts]


@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGINT])
def test_a_prompt_interrupted_while_starting_is_in_the_session(cli, sig):
    with FakeOpenAIServer(lambda req: Reply.text("I remember")) as server:
        assert cli("-p", "first", *fake(server)).code == 0
        proc = held_run(cli, "-c", "-p", "remember PELICAN", *fake(server))
        try:
            path = saved(cli.home, "remember PELICAN")
            proc.send_signal(sig)
            assert proc.wait(30) != 0
        finally:
            proc.kill()
            proc.communicate()
        assert len(server.requests) == 1  # it never reached the model
        assert said(path) == ["first", "I remember", "remember PELICAN"]
        again = cli("-c", "-p", "go on", *fake(server))
    assert again.code == 0, again.stderr
    assert "had not reached the model" in again.stderr
    sent = [m["content"] for m in user_messages(server.requests[-1])]
    assert sent == ["first", "remember PELICAN", "go on"]


def test_a_prompt_read_from_stdin_is_saved_before_start_up_too(cli):
    with FakeOpenAIServer(lambda req: Reply.text("ok")) as server:
        proc = held_run(cli, "-p", "-", *fake(server), stdin=b"FROM STDIN: remember HERON\n")
        try:
            path = saved(cli.home, "remember HERON")
            proc.send_signal(signal.SIGTERM)
            assert proc.wait(30) != 0
        finally:
            proc.kill()
            proc.communicate()
        assert said(path) == ["FROM STDIN: remember HERON\n"]
        again = cli("-c", "-p", "go on", *fake(server))
    assert again.code == 0, again.stderr
    assert [m["content"] for m in user_messages(server.requests[-1])] == ["FROM STDIN: remember HERON\n", "go on"]


def test_a_session_that_cannot_reach_the_model_keeps_the_prompt_unanswered(cli):
    """No key for the provider: exit 1, the prompt kept in the session the JSON result names."""
    failed = cli("-p", "remember OSPREY", "--model", "deepseek-chat", "--output-format", "json")
    assert failed.code == 1 and "DEEPSEEK_API_KEY is not set" in failed.stderr, failed.stderr
    sid = failed.json()["session_id"]
    [path] = cli.sessions()
    assert path.stem == sid and said(path) == ["remember OSPREY"]
    with FakeOpenAIServer(lambda req: Reply.text("ok")) as server:
        again = cli("-r", sid, "-p", "go on", *fake(server))
    assert again.code == 0, again.stderr
    assert [m["content"] for m in user_messages(server.requests[-1])] == ["remember OSPREY", "go on"]
    assert len(cli.sessions()) == 1


def test_a_run_refused_when_its_session_opens_leaves_nothing_behind(cli):
    """A window too small is bad usage, refused as a bad flag is: the prompt saved while it started
    is taken back — a session it made goes, and an earlier one keeps the history it had (and the
    options it remembers)."""
    with FakeOpenAIServer(lambda req: Reply.text("ok")) as server:
        fresh = cli("-p", "never", *fake(server), "--context-window", "3072")
        assert fresh.code == 2 and cli.sessions() == [], fresh.stderr
        assert cli("-p", "first", *fake(server), "--context-window", "16k").code == 0
        [path] = cli.sessions()
        before = said(path)
        refused = cli("-c", "-p", "not this", *fake(server), "--context-window", "3072")
        assert refused.code == 2 and "the minimum is" in refused.stderr, refused.stderr
        again = cli("-c", "-p", "go on", *fake(server), "--output-format", "stream-json")
    assert again.code == 0, again.stderr
    assert said(path) == [*before, "go on", "ok"]
    assert [m["content"] for m in user_messages(server.requests[-1])] == ["first", "go on"]
    assert '"window": 16000' in again.stdout.splitlines()[0]
    assert "had not reached the model" not in again.stderr
