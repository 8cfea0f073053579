"""The pipeline's own time per request against serializing the same history to JSON (run by hand).

A synthetic coding session (user prompt; responses with a line of text and one tool call; tool
results of mixed sizes, ~100 tokens per message on average) is grown to 100, 500, 1,000 and 2,000
messages (~10K to ~200K tokens). For each size a fresh `ContextManager` with the default layers
(spill directory and collapse log in a temp dir) shapes the history the way every model request
does (`prepare_view`): once cold (every layer judges every message for the first time), then for
20 requests that each add one exchange (median of 3 trials) (the steady state of a long tool loop; the layers re-apply
frozen decisions). The window is large enough that no compaction (a model call) is timed, but the
layers still act (microcompact clears old results in a batch). Then a look at the next request's
view (`shaping.preview`: what /context and the toolbar, redrawn as the user types, show): the same
layers on copies of their decisions. For comparison: one `ModelMessagesTypeAdapter.dump_json` of
the same history, what sending it costs at the least.

    .venv/bin/python benchmarks/pipeline_speed.py
"""

from __future__ import annotations

import asyncio
import statistics
import tempfile
import time
from pathlib import Path

from pydantic_ai.messages import (
    ModelMessage,
    ModelMessagesTypeAdapter,
    ModelRequest,
    ModelResponse,
    TextPart,
    ToolCallPart,
    ToolReturnPart,
    UserPromptPart,
)

from compact_agent.config import Limits, Settings
from compact_agent.context.compaction.compactor import Compactor
from compact_agent.context.compaction.result import CompactionBlocked
from compact_agent.context.layers.order import default_layers
from compact_agent.context.pipeline import ContextManager
from compact_agent.context.plumbing import tokens
from compact_agent.context.shaping import preview
from compact_agent.context.wiring import Internals
from compact_agent.replay.ours import MemoryStore

SIZES = (100, 500, 1_000, 2_000)
RESULT_CHARS = (100, 320, 700, 1_900, 240, 1_300, 50, 560)  # cycled: ~100 tokens per message overall
TOOLS = ("read_file", "bash", "grep", "edit_file")
STEADY = 20
TRIALS = 3


def exchange(i: int) -> list[ModelMessage]:
    tool = TOOLS[i % len(TOOLS)]
    call = ToolCallPart(tool, {"path": f"src/mod{i % 40}.py", "pattern": "def "}, tool_call_id=f"call_{i}")
    body = (f"line {i}: " + "def handler(request): return respond(request.body)\n" * 60)[: RESULT_CHARS[i % len(RESULT_CHARS)]]
    return [ModelResponse(parts=[TextPart(f"Checking step {i}."), call], model_name="bench"),
            ModelRequest(parts=[ToolReturnPart(tool, body, tool_call_id=f"call_{i}")])]


def history(n_messages: int) -> list[ModelMessage]:
    msgs: list[ModelMessage] = [ModelRequest(parts=[UserPromptPart("Refactor the handlers and keep the tests green.")])]
    i = 0
    while len(msgs) < n_messages:
        msgs += exchange(i)
        i += 1
    return msgs


def manager(root: Path) -> ContextManager:
    settings = Settings(memory_enabled=False)
    limits = Limits.for_window(1_000_000, 32_000, settings)
    store = MemoryStore(root)

    async def no_summary(messages: list[ModelMessage], prompt: str) -> str:
        raise RuntimeError("not timed")

    def refuse(trigger: str, instructions: str) -> str:
        # Past the cheapest point (from about 1,000 messages) the schedule asks for a compaction on
        # every request: refused here, as a PreCompact hook may, it is priced each time as in a real
        # session, and the history keeps its size. A failing summary would instead open the
        # breaker after a few requests, and the rest would skip the pricing.
        raise CompactionBlocked("not timed")

    cm = ContextManager.wired(Internals(limits=limits, summarizer=lambda cm: no_summary, compactor=Compactor(limits),
                                        layers=default_layers(settings, store)), settings=settings, store=store)
    cm.before_compact = refuse
    return cm


async def measure(n: int) -> tuple[int, float, float, float, float]:
    msgs = history(n)
    with tempfile.TemporaryDirectory() as tmp:
        cm = manager(Path(tmp))
        t0 = time.perf_counter()
        await cm.prepare_view(msgs)
        cold = time.perf_counter() - t0
        steady: list[float] = []
        for k in range(STEADY):
            msgs += exchange(10_000 + k)
            t0 = time.perf_counter()
            await cm.prepare_view(msgs)
            steady.append(time.perf_counter() - t0)
        looks: list[float] = []
        for _ in range(STEADY):
            t0 = time.perf_counter()
            preview(cm, list(msgs))
            looks.append(time.perf_counter() - t0)
    ModelMessagesTypeAdapter.dump_json(msgs[:2])  # warm the serializer
    t0 = time.perf_counter()
    for _ in range(5):
        ModelMessagesTypeAdapter.dump_json(msgs)
    dump = (time.perf_counter() - t0) / 5
    return tokens.estimate(msgs), cold, statistics.median(steady), statistics.median(looks), dump


def main() -> None:
    print(f"{'messages':>8} {'tokens':>8} {'cold ms':>9} {'per request ms':>15} {'look ms':>8} {'dump_json ms':>13} "
          f"{'ratio':>6}")
    for n in SIZES:
        trials = [asyncio.run(measure(n)) for _ in range(TRIALS)]  # a shared machine is noisy: medians
        est = trials[0][0]
        cold, steady, look, dump = (statistics.median(t[k] for t in trials) for k in (1, 2, 3, 4))
        print(f"{n:>8} {est:>8,} {1e3 * cold:>9.1f} {1e3 * steady:>15.1f} {1e3 * look:>8.1f} {1e3 * dump:>13.1f} "
              f"{steady / dump:>6.1f}")


if __name__ == "__main__":
    main()
