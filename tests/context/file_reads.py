"""Histories of file reads for the compactor's tests: `reads(start, n)`, the model's reads of
src/mNN.py, each a call and its result of 40 lines; `no_model`, a summarize for compactions that
must write a record and ask no model."""

from __future__ import annotations

from pydantic_ai.messages import ModelMessage, ModelRequest, ModelResponse, ToolCallPart, ToolReturnPart


def reads(start: int, n: int) -> list[ModelMessage]:
    out: list[ModelMessage] = []
    for i in range(start, start + n):
        out += [ModelResponse(parts=[ToolCallPart("read_file", {"path": f"src/m{i:02d}.py"}, tool_call_id=f"r{i}")]),
                ModelRequest(parts=[ToolReturnPart("read_file", f"x_{i} = {i}\n" * 40, tool_call_id=f"r{i}")])]
    return out


async def no_model(messages: list[ModelMessage], prompt: str) -> str:
    raise AssertionError("a record asks no model")
