"""Small hand-built transcripts for the replay tests: sizes chosen so thresholds are easy to reason about;
the simulation they are replayed in, and a `Spy` on a strategy's views."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from pathlib import Path

from pydantic_ai.messages import (
    ModelMessage,
    ModelRequest,
    ModelResponse,
    TextPart,
    ToolCallPart,
    ToolReturnPart,
    UserPromptPart,
)
from pydantic_ai.usage import RequestUsage

from compact_agent.context.plumbing import tokens
from compact_agent.replay.importers import Transcript
from compact_agent.replay.simulate import Sim, TokenModel
from compact_agent.replay.standin import standin_summarize

T0 = datetime(2026, 1, 1, tzinfo=UTC)


def session(turns: list[tuple[str, list[int]]], *, tool: str = "bash", usage: tuple[float, int] | None = None,
            edits: dict[int, str] | None = None) -> Transcript:
    """One user prompt per turn, each followed by tool calls whose results have the given sizes (chars)
    and a closing text answer.

    `usage=(ratio, overhead)` records provider usage as ratio × estimate + overhead on every response;
    `edits` maps a global call number to a path that call edits (an `Edit` call instead of `tool`).
    A `Read` tool reads `/src/f<n>.py`.
    """
    msgs: list[ModelMessage] = []
    n = 0
    t = T0
    for prompt, sizes in turns:
        msgs.append(ModelRequest(parts=[UserPromptPart(prompt, timestamp=t)]))
        for size in sizes:
            t += timedelta(seconds=30)
            path = (edits or {}).get(n)
            if path:
                call = ToolCallPart("Edit", {"file_path": path, "old_string": "a", "new_string": "b"}, tool_call_id=f"c{n}")
            elif tool == "Read":
                call = ToolCallPart("Read", {"file_path": f"/src/f{n}.py"}, tool_call_id=f"c{n}")
            else:
                call = ToolCallPart(tool, {"command": f"step {n}"}, tool_call_id=f"c{n}")
            msgs.append(ModelResponse(parts=[TextPart(f"working on step {n}"), call], timestamp=t,
                                      usage=RequestUsage(output_tokens=20)))
            msgs.append(ModelRequest(parts=[ToolReturnPart(call.tool_name, f"out{n} " + "x" * size,
                                                           tool_call_id=f"c{n}", timestamp=t)]))
            n += 1
        t += timedelta(seconds=30)
        msgs.append(ModelResponse(parts=[TextPart(f"finished: {prompt[:40]}")], timestamp=t,
                                  usage=RequestUsage(output_tokens=5)))
    if usage:
        ratio, overhead = usage
        for i, m in enumerate(msgs):
            if isinstance(m, ModelResponse):
                m.usage = RequestUsage(input_tokens=round(ratio * tokens.estimate(msgs[:i])) + overhead,
                                       output_tokens=20)
    return Transcript(Path("synthetic.jsonl"), "openai-chat", msgs)


def sim(window: int, tm: TokenModel | None = None, max_output: int = 4_000) -> Sim:
    return Sim(window, tm or TokenModel(), standin_summarize, max_output=max_output)


FILES = [f"src/m{k}.py" for k in range(5)]
"""Five source files a session reads again and again (`text_of`: ~2K tokens each)."""


def text_of(path: str) -> str:
    """The unchanging text of one of `FILES`."""
    return "".join(f"def {Path(path).stem}_f{i}(x):\n    return x * {i}  # {path}\n" for i in range(180))


class Spy:
    """Wraps a strategy and keeps every view it sent."""

    def __init__(self, inner):
        self.inner, self.name, self.views = inner, inner.name, []

    async def step(self, history, s):
        step = await self.inner.step(history, s)
        self.views.append(step.view)
        return step

    async def observe(self, sent, out, response):
        await self.inner.observe(sent, out, response)
