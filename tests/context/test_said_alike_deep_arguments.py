"""A store's copy of a message is compared with the one held by what it says (`said_alike`), tool
arguments parsed. Arguments a model wrote as `[[[[…` past the JSON parser's depth ended that
comparison, and the run with it, with a RecursionError: they are text that is not JSON, the same
only as the same text."""

from __future__ import annotations

from pydantic_ai.messages import ModelResponse, ToolCallPart

from compact_agent.context.plumbing.stores import said_alike


def test_arguments_nested_past_the_parsers_depth_compare_as_text() -> None:
    deep = "[" * 100_000

    def call(args: str, ident: str = "c1") -> ModelResponse:
        return ModelResponse(parts=[ToolCallPart("bash", args, tool_call_id=ident)])

    assert said_alike(call(deep), call(deep, "c1"))  # the same words, two objects
    assert not said_alike(call(deep), call(deep + "["))
    assert said_alike(call('{"command": "ls"}'), call('{"command":  "ls"}'))  # parsed as before
