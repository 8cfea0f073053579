"""The line of a new session that starts within a server's window kept from an earlier one ends with
what undoes it, and that is true: `(--context-window sets another)` was not (a larger window given is
refused by the server again and learned again, and a resumed session keeps its own); the line now
names `compact-agent config --forget-window URL`, and that command, run as written, forgets it."""

from __future__ import annotations

import re
import shlex

from compact_agent.agent.run import server_windows
from tests.e2e.conftest import Cli


def test_the_command_the_line_names_forgets_the_window(cli: Cli) -> None:
    url = "http://127.0.0.1:9/v1"
    server_windows.remember(cli.home, url, "local", 8_000, "refused")
    at = ("-m", "local", "--base-url", url, "--api-key", "k")
    held = cli("-p", "/status", *at)
    assert held.code == 0 and "/ window 8,000 tokens" in held.stdout, held.stdout + held.stderr
    assert "--context-window sets another" not in held.stderr, held.stderr
    named = re.search(r"\(compact-agent (config --forget-window \S+) forgets it\)", held.stderr)
    assert named is not None, held.stderr
    assert cli(*shlex.split(named.group(1))).code == 0
    free = cli("-p", "/status", *at)
    assert "/ window 32,768 tokens" in free.stdout and "working within" not in free.stderr, free.stdout + free.stderr
