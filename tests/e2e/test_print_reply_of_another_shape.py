"""A streamed reply that is valid JSON in a shape the API never sends — `choices` a string, a tool
call that is no table, a time that is none — ends the turn with one line in words, never the words of the Python code
that read it ("'str' object has no attribute 'finish_reason'"); the session goes on with the next
message, as after any failed reply (whose message `-c` says got no answer)."""

from __future__ import annotations

from typing import Any

import pytest

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
    assert again.stderr == "" or "got no answer before the last run ended" in again.stderr, again


def test_an_error_of_our_own_is_not_blamed_on_the_reply() -> None:
    from compact_agent.error_text import describe_error

    try:
        {}["missing"]  # noqa: B018 - raised here, in no reader of a reply
    except KeyError as e:
        assert "shape" not in describe_error(e)
