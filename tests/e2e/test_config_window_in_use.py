"""`config` shows the window a run with the same flags works within: after a local server refused at
6,000 tokens (kept in servers/windows.json), `compact-agent --base-url URL -m fake-model config`
said `context_window  32768  assumed: fake-model is not a known model` above the list that named
the 6,000 kept, while a session there starts within 6,000. `/config` in such a session said the
same "assumed" of its 6,000."""

from __future__ import annotations

import json
import re
from datetime import UTC, datetime

from compact_agent.agent.run import server_windows
from tests.e2e.conftest import Cli
from tests.e2e.scripted import FileTaskAgent, make_project, task_text
from tests.fakes.openai_server import FakeOpenAIServer

URL = "http://127.0.0.1:9/v1"  # nothing listens: config and -p /config send no request
AT = ("--base-url", URL, "-m", "fake-model")
WHEN = datetime(2026, 5, 1, 9, 30, tzinfo=UTC)
LEARNED = "learned from the server (named in a refusal, 2026-05-01 09:30 UTC)"


def row(out: str, setting: str) -> tuple[str, str]:
    found = re.search(rf"^{setting}\s+(\S+)\s+(.+?)\s*$", out, re.MULTILINE)
    assert found is not None, out
    return found[1], found[2]


def test_config_shows_the_window_remembered_for_the_server_and_model(cli: Cli) -> None:
    server_windows.remember(cli.home, URL, "fake-model", 6_000, "refused", now=WHEN)
    shown = cli(*AT, "config")
    assert shown.code == 0, shown.stderr
    assert row(shown.stdout, "context_window") == ("6000", LEARNED)
    data = cli(*AT, "config", "--json").json()
    assert data["settings"]["context_window"] == {"value": 6_000, "source": LEARNED}

    slash = cli("-p", "/config", *AT, "--api-key", "k")  # a session there starts within it, and says so
    assert slash.code == 0, slash.stderr
    assert row(slash.stdout, "context_window") == ("6000", LEARNED)

    # A window given wins, as in a session; another model or endpoint has none kept.
    assert row(cli(*AT, "--context-window", "20k", "config").stdout, "context_window") == ("20000", "flag")
    other = cli("--base-url", URL, "-m", "other-model", "config").stdout
    assert row(other, "context_window") == ("32768", "assumed: other-model is not a known model (set context_window)")


def test_a_window_kept_without_how_or_when_and_one_larger(cli: Cli) -> None:
    path = server_windows.path_in(cli.home)
    path.parent.mkdir(parents=True)
    path.write_text(json.dumps({"windows": {URL: {"fake-model": 5000, "big": 64000}}}))  # as an older version kept it
    assert row(cli(*AT, "config").stdout, "context_window") == ("5000", "learned from the server")
    big = cli("--base-url", URL, "-m", "big", "config").stdout  # larger than assumed: a session is not held to it
    assert row(big, "context_window")[0] == "32768"


def test_slash_config_after_the_server_refused_in_the_session(cli: Cli) -> None:
    """Resumed (-c) after a refusal taught 8,000: `/config` says the window is the server's."""
    make_project(cli.cwd, 12)
    with FakeOpenAIServer(FileTaskAgent(n=12), window=8_000, model="local", overflow="llama.cpp") as server:
        at = ("-m", "local", "--base-url", server.base_url, "--api-key", "k")
        assert cli("-p", task_text(12), "-y", *at).code == 0
        assert len(server.rejected) == 1
        slash = cli("-c", "-p", "/config", *at)
        assert slash.code == 0, slash.stderr
        value, source = row(slash.stdout, "context_window")
        assert value == "8000" and source.startswith("learned from the server (named in a refusal, "), slash.stdout
