"""What each layer keeps out of the context now, each tool result once: a result spilled to a file
and then folded into a collapse digest counts whole under the digest (accounting/kept_out.py)."""

from __future__ import annotations

from dataclasses import replace

from pydantic_ai import Agent
from pydantic_ai.messages import (
    ModelMessage,
    ModelRequest,
    ModelResponse,
    TextPart,
    ToolCallPart,
    ToolReturnPart,
)
from pydantic_ai.models.function import AgentInfo, FunctionModel
from pydantic_ai.usage import RequestUsage

from compact_agent.agent.accounting.kept_out import kept_out
from compact_agent.context import ContextManager, Prices
from compact_agent.context.layers.microcompact import CLEARED
from compact_agent.context.plumbing import tokens

READS = 7
RULES = "Read every page you are asked to, one at a time, and say how many you have read. " * 48


def page(i: int) -> str:
    return f"VALUE={i}\n" + "\n".join(f"line {k}: lorem ipsum dolor sit amet {i}-{k}" for k in range(150))


def reader(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
    """Reads the next page (the newest call id it was sent says which), until all are read."""
    ids = [int(p.tool_call_id.split("-")[1]) for m in messages for p in m.parts if isinstance(p, ToolReturnPart)]
    done = max(ids, default=-1) + 1
    usage = RequestUsage(input_tokens=tokens.estimate(messages) + 900, output_tokens=10)
    if done >= READS:
        return ModelResponse(parts=[TextPart("all read")], usage=usage)
    return ModelResponse(parts=[TextPart(f"read {done} so far"),
                                ToolCallPart("read", {"i": done}, tool_call_id=f"call-{done}")], usage=usage)


async def shaped() -> tuple[ContextManager, list[ModelMessage], list[ModelMessage]]:
    cm = ContextManager(window=8_000, prices=Prices(known=False))  # a local server's: thresholds decide
    agent: Agent[None, str] = Agent(FunctionModel(reader), capabilities=[cm], instructions=RULES)

    @agent.tool_plain
    def read(i: int) -> str:
        """Read page i."""
        return page(i)

    history = (await agent.run("read the pages")).all_messages()
    view, _ = cm.shape(list(history))
    return cm, history, view


async def test_a_spilled_result_folded_since_counts_under_the_digest_and_the_total_is_kept() -> None:
    cm, history, view = await shaped()
    results = {p.tool_call_id: p for m in history for p in m.parts if isinstance(p, ToolReturnPart)}
    shown = {p.tool_call_id: p for m in view if isinstance(m, ModelRequest) for p in m.parts
             if isinstance(p, ToolReturnPart)}
    previews = [i for i, p in shown.items() if "budget" in p.metadata.get("compact_agent", {})]
    folded = [i for i in results if i not in shown]
    assert previews and folded, (previews, folded)  # the case: some spilled and shown, some folded since
    assert cm.view_savings["budget"] > 0 and cm.view_savings["collapse"] > 0

    kept = kept_out(history, view, cm.view_savings, cm.layers or ())

    spilled_shown = sum(tokens.part_tokens(results[i]) - tokens.part_tokens(shown[i]) for i in previews)
    assert kept["budget"] == spilled_shown  # the previews the context shows, no more
    assert sum(kept.values()) == sum(cm.view_savings.values())  # each token once, none lost
    assert kept["collapse"] == cm.view_savings["collapse"] + cm.view_savings["budget"] - spilled_shown


async def test_a_spilled_result_cleared_since_counts_under_the_clearing_and_a_folded_one_under_the_fold() -> None:
    """The same rule for microcompact: the spill of a result /context shows as cleared counts with its
    clearing, and the clearing of a result folded since counts with the fold."""
    cm, history, view = await shaped()
    before = kept_out(history, view, cm.view_savings, cm.layers or ())
    layers = {layer.name: layer for layer in cm.layers or ()}
    shown = [p.tool_call_id for m in view if isinstance(m, ModelRequest) for p in m.parts
             if isinstance(p, ToolReturnPart) and p.tool_call_id in layers["budget"].replacements]
    folded = [i for c in layers["collapse"].commits for i in c.ids if i in layers["budget"].replacements]
    assert shown and folded
    for call_id in (shown[0], folded[0]):  # as a clearing decided earlier is re-applied
        layers["microcompact"].cleared[call_id] = "count"

    view, _ = cm.shape(list(history))
    kept = kept_out(history, view, cm.view_savings, cm.layers or ())

    results = {p.tool_call_id: p for m in history for p in m.parts if isinstance(p, ToolReturnPart)}

    def clearing(call_id: str) -> int:
        shown_as = replace(results[call_id], content=layers["budget"].replacements[call_id])
        return tokens.part_tokens(shown_as) - tokens.part_tokens(replace(shown_as, content=CLEARED))
    assert cm.view_savings["microcompact"] == clearing(shown[0]) + clearing(folded[0])  # the folded one's too
    preview = replace(results[shown[0]], content=layers["budget"].replacements[shown[0]])
    assert kept["microcompact"] == tokens.part_tokens(results[shown[0]]) - tokens.part_tokens(
        replace(preview, content=CLEARED))  # the one shown cleared, whole; nothing of the folded one
    assert kept["budget"] == before["budget"] - (tokens.part_tokens(results[shown[0]]) - tokens.part_tokens(preview))
    assert kept["collapse"] == before["collapse"]  # the folded result still counts whole under the fold
    assert sum(kept.values()) == sum(cm.view_savings.values())
