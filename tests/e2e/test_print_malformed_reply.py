"""A model reply that is not valid JSON ends the turn with a line in words, never the decoder's
message ("Failed to decode response as JSON: Expecting property name enclosed in double quotes:
line 1 column 40 (char 39)"), on an OpenAI-compatible endpoint and on Anthropic's, streamed or not."""

from __future__ import annotations

import pytest
from pydantic_ai import Agent
from pydantic_ai.models.anthropic import AnthropicModel
from pydantic_ai.models.openai import OpenAIChatModel
from pydantic_ai.providers.anthropic import AnthropicProvider
from pydantic_ai.providers.openai import OpenAIProvider

from compact_agent.error_text import describe_error
from tests.fakes.anthropic_server import AnthropicReply, FakeAnthropicServer
from tests.fakes.openai_server import FakeOpenAIServer, Fault, Reply

#: No waits between our retries of a malformed reply: the line is the same after none.
NO_RETRIES = {"COMPACT_AGENT_TRANSIENT_RETRIES": "0"}


def said_in_words(line: str) -> None:
    assert "not valid JSON" in line and "nothing of it was kept" in line, line
    for python in ("Failed to decode", "Expecting", "line 1 column", "(char ", "Error", "\n"):
        assert python not in line, line


def test_openai_compatible_stream(cli):
    with FakeOpenAIServer(lambda req: Reply.text("ok"), faults=lambda req, attempt: Fault.malformed_json()) as server:
        res = cli("-p", "hi", "--model", "fake-model", "--base-url", server.base_url, "--api-key", "k",
                  env=NO_RETRIES)
        out = cli("-p", "hi", "--model", "fake-model", "--base-url", server.base_url, "--api-key", "k",
                  "--output-format", "json", env=NO_RETRIES)
    assert res.code == 1 and res.stdout == ""
    [line] = res.stderr.splitlines()
    said_in_words(line)
    assert "(at character " in line and "the session is saved" in line
    said_in_words(out.json()["error"])


def test_anthropic_stream(cli):
    with FakeAnthropicServer(lambda req: AnthropicReply("ok"), malformed=True) as server:
        res = cli("-p", "hi", "--model", "claude-sonnet-4-5", env={**NO_RETRIES, "ANTHROPIC_BASE_URL": server.base_url,
                                                                   "ANTHROPIC_API_KEY": "sk-ant-test"})
    assert res.code == 1 and res.stdout == "" and server.requests
    [line] = res.stderr.splitlines()
    said_in_words(line)


async def test_not_streamed_either_provider():
    """A request not streamed (the summary a compaction asks for is one) fails the same way."""
    with FakeOpenAIServer(lambda req: Reply.text("ok"), faults=lambda req, attempt: Fault.malformed_json()) as server:
        model = OpenAIChatModel("fake-model", provider=OpenAIProvider(base_url=server.base_url, api_key="k"))
        with pytest.raises(Exception) as openai:
            await Agent(model).run("hi")
    with FakeAnthropicServer(lambda req: AnthropicReply("ok"), malformed=True) as server:
        model = AnthropicModel("claude-sonnet-4-5", provider=AnthropicProvider(base_url=server.base_url,
                                                                                api_key="sk-ant-test"))
        with pytest.raises(Exception) as anthropic:
            await Agent(model).run("hi")
    for error in (openai.value, anthropic.value):
        line = describe_error(error)
        said_in_words(line)
        assert "(at character " in line, line
