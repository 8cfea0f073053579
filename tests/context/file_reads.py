"""Histories of file reads for the compactor's tests: `reads(start, n)`, the model's reads of
src/mNN.py, each a call and its result of 40 lines; `wrote_then_read(prompt)`, a turn that writes
new_wr9.py and then reads 30 of them; `no_model`, a summarize for compactions that must write a
record and ask no model."""

from __future__ import annotations

from pydantic_ai.messages import (
    ModelMessage,
    ModelRequest,
    ModelResponse,
    TextPart,
    ToolCallPart,
    ToolReturnPart,
    UserPromptPart,
)


def reads(start: int, n: int) -> list[ModelMessage]:
    out: list[ModelMessage] = []
    for i in range(start, start + n):
        out += [ModelResponse(parts=[ToolCallPart("read_file", {"path": f"src/m{i:02d}.py"}, tool_call_id=f"r{i}")]),
                ModelRequest(parts=[ToolReturnPart("read_file", f"x_{i} = {i}\n" * 40, tool_call_id=f"r{i}")])]
    return out


def wrote_then_read(prompt: str) -> list[ModelMessage]:
    return [
        ModelRequest(parts=[UserPromptPart(prompt)]),
        ModelResponse(parts=[ToolCallPart("write_file", {"path": "new_wr9.py", "content": "VALUE_wr9 = 42"},
                                          tool_call_id="call_1")]),
        ModelRequest(parts=[ToolReturnPart("write_file", "Wrote new_wr9.py (1 line)", tool_call_id="call_1")]),
        *reads(0, 30), ModelResponse(parts=[TextPart("Read 30 files.")])]


async def no_model(messages: list[ModelMessage], prompt: str) -> str:
    raise AssertionError("a record asks no model")
