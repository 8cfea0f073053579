"""`analyze --model`'s requests keep the settings' timeout and retries, as the chat's requests do."""

from __future__ import annotations

import time
from pathlib import Path

from tests.fakes.openai_server import FakeOpenAIServer, Fault

from .test_cli_analyze import NO_KEYS, _compacting, _summary, cli


def test_a_summary_server_that_never_answers_is_given_up_on_as_the_settings_say(tmp_path: Path) -> None:
    """The summary model was built with the defaults whatever the settings said: a server that took
    the request and never answered held the analysis 600 s an attempt, three attempts, without a
    word, where request_timeout_s = 1 and max_retries = 0 end the chat's own request in a second."""
    transcript = _compacting(tmp_path)
    with FakeOpenAIServer(_summary, faults=lambda req, attempt: Fault.slow(40)) as server:
        started = time.monotonic()
        out = cli(str(transcript), "--window", "8000", "-s", "codex", "--model", "fake-model",
                  "--base-url", server.base_url, "--api-key", "k", cwd=tmp_path,
                  env={**NO_KEYS, "COMPACT_AGENT_REQUEST_TIMEOUT_S": "1", "COMPACT_AGENT_MAX_RETRIES": "0"})
        took = time.monotonic() - started
        asked = len(server.requests)
    assert out.returncode == 1 and out.stdout == "", (out.stdout, out.stderr)
    assert out.stderr.startswith("compact-agent: summary calls through --model fake-model failed")
    assert asked == 1 and took < 20, (asked, took)
