"""How often a request counts tokens, and what that costs (run by hand).

A real pydantic-ai `Agent` (a `FunctionModel` that reads 120 pages with a tool, one per request,
in a 128K window: the history grows to ~90K tokens, with compactions on the way) runs twice:

- with `token_counter=` a counter that serializes what it is given to JSON and counts a token per
  four bytes (the cost profile of a real tokenizer: linear in the text), recording every call;
- with the built-in estimate, recording every call of `tokens.estimate` and the messages it sums.

Printed per model request: counter calls, messages counted, counter time; estimate calls and the
messages they walk; the capability's whole time per request.

    .venv/bin/python benchmarks/token_counting.py
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Sequence

from pydantic_ai import Agent
from pydantic_ai.messages import ModelMessage, ModelMessagesTypeAdapter, ModelResponse, TextPart, ToolCallPart
from pydantic_ai.models.function import AgentInfo, FunctionModel
from pydantic_ai.usage import RequestUsage, UsageLimits

from compact_agent.context import ContextManager
from compact_agent.context import pipeline as pipeline_module
from compact_agent.context.plumbing import tokens
from compact_agent.context.testing import reply_to_library_request

PAGES = 120
WINDOW = 128_000


class Tally:
    def __init__(self) -> None:
        self.calls = self.messages = 0
        self.seconds = 0.0


def make_model(pages: int) -> FunctionModel:
    state = {"left": pages}

    def model(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        chars = sum(len(str(getattr(p, "content", ""))) for m in messages for p in m.parts)
        usage = RequestUsage(input_tokens=chars // 4 + 300, output_tokens=20)
        if (reply := reply_to_library_request(messages, usage=usage)) is not None:
            return reply
        if state["left"]:
            state["left"] -= 1
            return ModelResponse(parts=[ToolCallPart("read", {"page": pages - state["left"]})], usage=usage)
        return ModelResponse(parts=[TextPart("done")], usage=usage)

    return FunctionModel(model)


async def run(counter: bool) -> None:
    tally, est = Tally(), Tally()

    def count(messages: Sequence[ModelMessage]) -> int:
        t0 = time.perf_counter()
        n = len(ModelMessagesTypeAdapter.dump_json(list(messages))) // 4
        tally.calls += 1
        tally.messages += len(messages)
        tally.seconds += time.perf_counter() - t0
        return n

    original = tokens.estimate

    def watched(messages: Sequence[ModelMessage]) -> int:
        ms = list(messages)
        est.calls += 1
        est.messages += len(ms)
        return original(ms)

    tokens.estimate = watched  # type: ignore[assignment]
    cm = ContextManager(window=WINDOW, token_counter=count if counter else None)
    requests = {"n": 0}
    prepare = cm.prepare_model_request
    spent = Tally()

    async def timed(ctx, request_context):  # type: ignore[no-untyped-def]
        t0 = time.perf_counter()
        try:
            return await prepare(ctx, request_context)
        finally:
            spent.seconds += time.perf_counter() - t0
            requests["n"] += 1

    cm.prepare_model_request = timed  # type: ignore[method-assign]
    agent: Agent[None, str] = Agent(make_model(PAGES), capabilities=[cm])

    @agent.tool_plain
    def read(page: int) -> str:
        """One page."""
        return f"page {page}: " + " ".join(f"line-{page}-{i}" for i in range(1_200))

    try:
        await agent.run("Read every page.", usage_limits=UsageLimits(request_limit=1_000))
    finally:
        tokens.estimate = original  # type: ignore[assignment]
    n = max(1, requests["n"])
    label = "token_counter" if counter else "built-in estimate"
    print(f"{label}: {n} requests, {len(cm.compactions)} compactions")
    if counter:
        print(f"  counter calls per request     {tally.calls / n:8.1f}")
        print(f"  messages counted per request  {tally.messages / n:8.1f}")
        print(f"  counter time per request      {tally.seconds / n * 1000:8.2f} ms")
    print(f"  estimate calls per request    {est.calls / n:8.1f}")
    print(f"  messages summed per request   {est.messages / n:8.1f}")
    print(f"  pipeline time per request     {spent.seconds / n * 1000:8.2f} ms")


async def main() -> None:
    assert pipeline_module.tokens is tokens  # the pipeline calls tokens.estimate through the module
    await run(counter=True)
    await run(counter=False)


if __name__ == "__main__":
    asyncio.run(main())
