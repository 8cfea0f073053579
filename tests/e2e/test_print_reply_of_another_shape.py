"""A streamed reply that is valid JSON in a shape the API never sends — `choices` a string, a tool
call that is no table, a time that is none — ends the turn with one line in words, never the words of the Python code
that read it ("'str' object has no attribute 'finish_reason'"); the session goes on with the next
message, as after any failed reply (whose message `-c` says got no answer, and why)."""

from __future__ import annotations

import json
from typing import Any

import pytest

from tests.fakes.anthropic_server import AnthropicReply, FakeAnthropicServer
from tests.fakes.openai_server import FakeOpenAIServer, Fault, Reply


def _choices(value: object) -> Any:
    return lambda chunk: {**chunk, "choices": value} if chunk.get("choices") else chunk


def _delta(**fields: object) -> Any:
    def change(chunk: dict[str, Any]) -> dict[str, Any]:
        if not chunk.get("choices"):
            return chunk
        [choice] = chunk["choices"]
        return {**chunk, "choices": [{**choice, "delta": {**choice["delta"], **fields}}]}
    return change


SHAPES = {
    "choices a string": _choices("abc"),
    "choices of numbers": _choices([1, 2]),
    "tool calls a string": _delta(tool_calls="read_file"),
    "tool calls of strings": _delta(tool_calls=["read_file"]),
    "created no time": lambda chunk: {**chunk, "created": "yesterday"},
}


@pytest.mark.parametrize("name", list(SHAPES))
def test_a_reply_of_another_shape_is_one_line_in_words(cli, name: str) -> None:
    shaped = {"on": True}

    def faults(req: Any, attempt: int) -> Fault | None:
        return Fault.reshaped(SHAPES[name]) if shaped["on"] else None

    with FakeOpenAIServer(lambda req: Reply.text("fine"), faults=faults) as server:
        args = ["--model", "fake-model", "--base-url", server.base_url, "--api-key", "k"]
        res = cli("-p", "hi", *args)
        shaped["on"] = False
        again = cli("-c", "-p", "again", *args)
    assert res.code == 1 and res.stdout == "", res
    [line] = res.stderr.splitlines()
    assert "a reply in a shape this agent cannot read" in line and "the session is saved" in line, line
    for python in ("object has no attribute", "not subscriptable", "not iterable", "'str'", "Error", "validation"):
        assert python not in line, line
    assert again.code == 0 and again.stdout == "fine\n", again
    # The session keeps why the run ended (session/last_run.ENDED_ON_ERROR): -c says it, in the same words.
    assert again.stderr == "" or "got no answer: the last run ended on an error (the model endpoint sent a reply in a " \
        "shape this agent cannot read" in again.stderr, again


def test_an_error_of_our_own_is_not_blamed_on_the_reply() -> None:
    from compact_agent.error_text import describe_error

    try:
        {}["missing"]  # noqa: B018 - raised here, in no reader of a reply
    except KeyError as e:
        assert "shape" not in describe_error(e)


def _text_a_number(data: dict[str, Any]) -> dict[str, Any]:
    delta = data.get("delta")
    if data.get("type") == "content_block_delta" and isinstance(delta, dict) and delta.get("type") == "text_delta":
        return {**data, "delta": {**delta, "text": 5}}
    return data


def test_an_anthropic_text_that_is_a_number(cli) -> None:
    """The SDK builds the text part of a number; pydantic-ai added it to a text once the reply had
    come: 'can only concatenate str (not "int") to str'. Refused as it arrives, in words."""
    with FakeAnthropicServer(lambda req: AnthropicReply("fine"), reshaped=_text_a_number) as server:
        env = {"ANTHROPIC_BASE_URL": server.base_url, "ANTHROPIC_API_KEY": "sk-ant-test"}
        res = cli("-p", "hi", "--model", "claude-sonnet-4-5", env=env)
        streamed = cli("-p", "hi", "--model", "claude-sonnet-4-5", "--output-format", "stream-json", env=env)
        server.reshaped = None
        again = cli("-c", "-p", "again", "--model", "claude-sonnet-4-5", env=env)
    assert res.code == 1 and res.stdout == "", res
    [line] = res.stderr.splitlines()
    assert "a reply in a shape this agent cannot read" in line and "the session is saved" in line, line
    assert "concatenate" not in line and "unusable" not in line, line
    assert streamed.code == 1 and "a reply in a shape this agent cannot read" in json.loads(
        streamed.stdout.splitlines()[-1])["error"], streamed
    assert again.code == 0 and again.stdout == "fine\n", again


async def test_a_reply_not_streamed_is_said_alike() -> None:
    """A request not streamed (a summary's) is checked by pydantic-ai: its error named pydantic's
    model, 'Invalid response from openai chat completions endpoint: 1 validation error for
    ChatCompletion'."""
    from pydantic_ai import Agent
    from pydantic_ai.models.openai import OpenAIChatModel
    from pydantic_ai.providers.openai import OpenAIProvider

    from compact_agent.error_text import describe_error

    with FakeOpenAIServer(lambda req: Reply.text("ok"),
                          faults=lambda req, attempt: Fault.reshaped(lambda c: {**c, "created": "yesterday"})) as server:
        model = OpenAIChatModel("fake-model", provider=OpenAIProvider(base_url=server.base_url, api_key="k"))
        with pytest.raises(Exception) as failed:
            await Agent(model).run("hi")
    line = describe_error(failed.value)
    assert "a reply in a shape this agent cannot read" in line and "ChatCompletion" not in line, line
