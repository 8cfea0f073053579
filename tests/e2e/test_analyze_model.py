"""`compact-agent analyze --model`: the top-level --api-key reaches it, and a summary model that
cannot be used is one line saying why (nothing answers, the key is refused, the replies are no API
replies or no summaries) and what to do, with the endpoint it tried; the figures are not printed
(they would rest on summaries never written). Against the real HTTP fakes on 127.0.0.1."""

from __future__ import annotations

import json
import socket
from pathlib import Path

import pytest

from tests.fakes.anthropic_server import AnthropicReply, FakeAnthropicServer
from tests.fakes.openai_server import FakeOpenAIServer, Fault, Reply

from .test_analyze_cli import chat

KEY = "sk-analyze-top-level-0123456789"
SHORT = "sk-short"  # under the length a key is warned about: the error is the only line
NO_KEYS = {"DEEPSEEK_API_KEY": "", "OPENAI_API_KEY": "", "ANTHROPIC_API_KEY": ""}  # (the runner drops them too)


@pytest.fixture
def transcript(cli) -> Path:
    path = cli.cwd / "long.json"
    path.write_text(json.dumps(chat(30, 4_000)))  # codex compacts it several times at an 8,000-token window
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


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _one_line(res) -> str:
    """The one line on stderr; with --json (as `replay` asks) stdout is that line as `{"error": ...}`."""
    assert res.code == 1, (res.code, res.stdout[:200], res.stderr)
    lines = res.stderr.splitlines()
    assert len(lines) == 1 and "Traceback" not in res.stderr and "Error" not in lines[0], res.stderr
    assert json.loads(res.stdout) == {"error": lines[0].removeprefix("compact-agent: ")}, res.stdout[:200]
    return lines[0]


def test_a_summary_model_that_cannot_be_used_says_which_and_what_to_do(cli, transcript):
    port = _free_port()
    unreachable = cli(*replay(transcript, "--model", "fake-model", "--base-url", f"http://127.0.0.1:{port}/v1",
                              "--api-key", SHORT), env=NO_KEYS)
    with FakeOpenAIServer(summary, api_key="sk-other") as server:
        refused = cli(*replay(transcript, "--model", "fake-model", "--base-url", server.base_url, "--api-key", SHORT),
                      env=NO_KEYS)
        from_env = cli(*replay(transcript, "--model", "fake-model", "--base-url", server.base_url),
                       env={**NO_KEYS, "OPENAI_API_KEY": SHORT})
        assert len(server.requests) <= 4  # stopped at the first refusal, not one per compaction
    with FakeOpenAIServer(summary, faults=lambda req, attempt: Fault.malformed_json()) as server:
        malformed = cli(*replay(transcript, "--model", "fake-model", "--base-url", server.base_url, "--api-key", SHORT),
                        env=NO_KEYS)
    with FakeOpenAIServer(lambda req: Reply.text("")) as server:
        empty = cli(*replay(transcript, "--model", "fake-model", "--base-url", server.base_url, "--api-key", SHORT),
                    env=NO_KEYS)
        assert len(server.requests) <= 6  # given up after a few replies without a summary
    said = {
        "unreachable": (_one_line(unreachable), f"cannot reach the model endpoint at http://127.0.0.1:{port}/v1/ "
                        "(connection refused: nothing listens at that address and port); start the server there, or correct "
                        "the address"),
        "refused": (_one_line(refused), "the provider rejected the API key at http://127.0.0.1:"),
        "from env": (_one_line(from_env), "(HTTP 401); check OPENAI_API_KEY"),
        "malformed": (_one_line(malformed), "answered with something that is no API reply (its body is not valid "
                      "JSON); check that --base-url is the server's API address (it often ends in /v1)"),
        "empty": (_one_line(empty), "answered 3 summary requests with an empty reply and none with a summary; use a "
                  "chat model that follows instructions, or leave out --model for the deterministic stand-in"),
    }
    for name, (line, expected) in said.items():
        assert line.startswith("compact-agent: summary calls through --model fake-model "), (name, line)
        assert expected in line, (name, line)
    assert said["refused"][0].endswith("(HTTP 401); check the key given with --api-key")
    assert SHORT not in "".join(line for line, _ in said.values())


def test_an_anthropic_model_that_writes_no_summary(cli, transcript):
    with FakeAnthropicServer(lambda req: AnthropicReply("")) as server:
        res = cli(*replay(transcript, "--model", "claude-haiku-4-5"),
                  env={**NO_KEYS, "ANTHROPIC_API_KEY": SHORT, "ANTHROPIC_BASE_URL": server.base_url})
    line = _one_line(res)
    assert line.startswith("compact-agent: summary calls through --model claude-haiku-4-5 gave no usable summary"), line
    assert f"the model at {server.base_url}" in line and "with an empty reply" in line, line


def test_some_unusable_replies_are_a_note_and_the_figures_stand(cli, transcript):
    """A model that now and then answers without a summary: those compactions fail, as they would
    live; the figures are printed, and a note says how many and the first reason."""
    seen: list[int] = []

    def sometimes(req) -> Reply:
        seen.append(1)
        return Reply.text("") if len(seen) == 2 else Reply.text("<summary>the work so far</summary>")

    with FakeOpenAIServer(sometimes) as server:
        res = cli(*replay(transcript, "--model", "fake-model", "--base-url", server.base_url, "--api-key", SHORT),
                  env=NO_KEYS)
    assert res.code == 0, res.stderr
    [codex] = json.loads(res.stdout)["transcripts"][0]["results"]
    assert codex["failed_compactions"] == 1
    assert res.stderr.startswith("compact-agent: note: 1 of ") and res.stderr.count("\n") == 1, res.stderr
    assert "through --model fake-model gave no usable summary (the first: an empty reply)" in res.stderr


def test_a_key_in_the_transcript_reaches_no_summary_request(cli):
    """A session that holds the very key the --model requests are made with (pasted, or printed by a
    command) was sent to that model as it was: the summary requests carried the key in their text."""
    messages = chat(30, 4_000)
    for m in messages:
        if m["role"] == "tool":
            m["content"] = f"export OPENAI_API_KEY={KEY}\n" + m["content"]
    path = cli.cwd / "with-key.json"
    path.write_text(json.dumps(messages))
    with FakeOpenAIServer(summary, api_key=KEY) as server:
        res = cli(*replay(path, "--model", "fake-model", "--base-url", server.base_url, "--api-key", KEY),
                  env=NO_KEYS)
    assert res.code == 0, res.stderr
    [codex] = json.loads(res.stdout)["transcripts"][0]["results"]
    assert codex["compactions"] >= 1 and codex["failed_compactions"] == 0
    sent = [json.dumps(r.body) for r in server.requests]
    assert sent and any("export OPENAI_API_KEY=" in s for s in sent)  # the line went, the key did not
    assert not any(KEY in s for s in sent)


def test_a_model_the_server_does_not_serve_is_said_with_those_it_does(cli, transcript):
    """`analyze -m NAME --base-url URL` for a name the server does not serve (a name a little off
    the one it registered) said to check the model name, and not what the names were; the REPL's
    line for the same 404 names them (served_models.py)."""
    with FakeOpenAIServer(summary, serves=["Qwen/Qwen2.5-Coder-7B-Instruct"]) as server:
        res = cli(*replay(transcript, "--model", "qwen2.5-coder", "--base-url", server.base_url, "--api-key", SHORT),
                  env=NO_KEYS)
    line = _one_line(res)
    assert "answered HTTP 404" in line and "check the model name (-m qwen2.5-coder)" in line, line
    assert line.endswith("; the server serves fake-model, Qwen/Qwen2.5-Coder-7B-Instruct"), line
