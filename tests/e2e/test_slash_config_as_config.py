"""`/config` in a session shows what `compact-agent config` shows for the same flags: it ended with
the settings' files, without the windows learned from servers that `config` lists after them (the
window the session itself was working within among them), and then says what only a session
knows (its window and permissions)."""

from __future__ import annotations

from datetime import UTC, datetime

from compact_agent.agent.run import server_windows
from tests.e2e.conftest import Cli

URL = "http://127.0.0.1:9/v1"  # nothing listens: neither sends a request
WHEN = datetime(2026, 5, 1, 9, 30, tzinfo=UTC)


def test_slash_config_shows_what_config_shows_and_then_the_session(cli: Cli) -> None:
    for flags in (("--base-url", URL, "-m", "fake-model"), ("-m", "deepseek-chat")):
        command = cli(*flags, "config")
        slash = cli("-p", "/config", *flags, "--api-key", "k")
        assert command.code == 0 and slash.code == 0, command.stderr + slash.stderr
        assert "server windows learned: none" in command.stdout
        assert slash.stdout.startswith(command.stdout), (command.stdout, slash.stdout)
        assert slash.stdout[len(command.stdout):].startswith("this session: window ")

    server_windows.remember(cli.home, URL, "fake-model", 6_000, "refused", now=WHEN)
    server_windows.remember(cli.home, "http://localhost:11434/v1", "llama3", 5_000, "cut", now=WHEN)
    flags = ("--base-url", URL, "-m", "fake-model")
    command = cli(*flags, "config")
    slash = cli("-p", "/config", *flags, "--api-key", "k")
    assert slash.code == 0, slash.stderr
    assert slash.stdout.startswith(command.stdout), (command.stdout, slash.stdout)
    lines = [" ".join(line.split()) for line in slash.stdout.splitlines()]
    assert f"{URL} fake-model 6,000 tokens, named in a refusal, 2026-05-01 09:30 UTC" in lines
    assert "http://localhost:11434/v1 llama3 5,000 tokens, prompts cut to it, 2026-05-01 09:30 UTC" in lines
    assert "this session: window 6,000" in slash.stdout
