"""`compact-agent config --help` said where a value comes from, but not what the listing's marks
mean: an arrow after a source (`default → 800 in the 8,000-token window`) and a window `learned
from the server` (one a provider showed by answering that a prompt was too long, remembered per
endpoint and model, which `--forget-window` forgets). The help says both, in the listing's words."""

from __future__ import annotations

import re
from datetime import UTC, datetime

from compact_agent.agent.run import server_windows
from tests.e2e.conftest import Cli

URL = "http://127.0.0.1:9/v1"  # nothing listens: config sends no request


def test_config_help_says_what_the_arrow_and_a_learned_window_mean(cli: Cli) -> None:
    shown = cli("config", "--help")
    assert shown.code == 0, shown.stderr
    text = " ".join(shown.stdout.split())
    marks = re.search(r"Marks: (.*?) Options:", text)
    assert marks is not None, text
    said = marks.group(1)
    for words in ("an arrow after a source (→) gives what a run uses instead of the value set",
                  "A window learned from the server comes from no setting",
                  "answering that a prompt was too long (named in a refusal)",
                  "remembered per endpoint and model", "--forget-window forgets it"):
        assert words in said, said

    # The words of the help are the listing's: its example, and a window a server refused at.
    example = re.search(r"\((default → [^)]*)\)", said)
    assert example is not None, said
    small = cli("--base-url", URL, "-m", "fake-model", "--context-window", "8k", "config")
    assert example.group(1) in small.stdout, small.stdout
    server_windows.remember(cli.home, URL, "fake-model", 6_000, "refused", now=datetime(2026, 5, 1, tzinfo=UTC))
    kept = cli("--base-url", URL, "-m", "fake-model", "config").stdout
    [window] = [line for line in kept.splitlines() if line.startswith("context_window ")]
    assert "6000" in window and "learned from the server (named in a refusal" in window, kept
    assert "--forget-window" in kept
