"""`compact-agent analyze --model`: the top-level --api-key reaches it, and a summary model that
cannot be used is one line saying why (nothing answers, the key is refused, the replies are no API
replies or no summaries) and what to do, with the endpoint it tried; the figures are not printed
(they would rest on summaries never written). Against the real HTTP fakes on 127.0.0.1."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.fakes.openai_server import FakeOpenAIServer, Reply

KEY = "sk-analyze-top-level-0123456789"
NO_KEYS = {"DEEPSEEK_API_KEY": "", "OPENAI_API_KEY": "", "ANTHROPIC_API_KEY": ""}  # (the runner drops them too)


def chat(n_tools: int = 30, result_chars: int = 4_000) -> list[dict]:
    """An OpenAI chat transcript that codex compacts several times at an 8,000-token window."""
    out: list[dict] = [{"role": "user", "content": "go"}]
    for i in range(n_tools):
        out.append({"role": "assistant", "content": f"step {i}", "tool_calls": [
            {"id": f"c{i}", "type": "function", "function": {"name": "bash", "arguments": "{}"}}]})
        out.append({"role": "tool", "tool_call_id": f"c{i}", "content": "x" * result_chars})
    out.append({"role": "assistant", "content": "done"})
    return out


@pytest.fixture
def transcript(cli) -> Path:
    path = cli.cwd / "long.json"
    path.write_text(json.dumps(chat()))
    return path


def replay(transcript: Path, *extra: str) -> tuple[str, ...]:
    return ("analyze", str(transcript), "--window", "8000", "-s", "codex", "--json", *extra)


def summary(req) -> Reply:
    return Reply.text("<summary>the work so far</summary>")


def test_the_top_level_api_key_reaches_analyze(cli, transcript):
    """`compact-agent --api-key K analyze ... --model M --base-url U` said the key was missing, or
    sent another (the environment's); analyze's own --api-key still comes first."""
    with FakeOpenAIServer(summary, api_key=KEY) as server:
        top = cli("--api-key", KEY, *replay(transcript, "--model", "fake-model", "--base-url", server.base_url),
                  env={**NO_KEYS, "OPENAI_API_KEY": "sk-the-wrong-one-000000"})
        own = cli("--api-key", "sk-the-wrong-one-000000", *replay(transcript, "--model", "fake-model", "--base-url",
                                                                 server.base_url, "--api-key", KEY), env=NO_KEYS)
        config = cli("--api-key", KEY, "config", env=NO_KEYS)
    for res in (top, own):
        assert res.code == 0, res.stderr
        [codex] = json.loads(res.stdout)["transcripts"][0]["results"]
        assert codex["compactions"] >= 1 and codex["failed_compactions"] == 0
    assert server.requests and not server.rejected  # every summary carried the key given
    assert config.code == 0 and "unknown setting" not in config.stderr, config.stderr
    for res in (top, own, config):
        assert KEY not in res.stdout + res.stderr
