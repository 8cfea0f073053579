"""A history that ends waiting on a tool call (a deferred tool: approval asked of a person) can be
compacted while it waits: the call stays the history's last message, and the run goes on with its
result. It used to fail as 'compaction produced unpaired tool calls ({'call'}, set())', counting
the call the history itself waits on as one the compaction broke."""

from __future__ import annotations

from pydantic_ai import DeferredToolRequests, DeferredToolResults, ToolApproved
from pydantic_ai.messages import (
    ModelMessage,
    ModelRequest,
    ModelResponse,
    TextPart,
    ToolCallPart,
    ToolReturnPart,
)
from pydantic_ai.models.function import AgentInfo, FunctionModel

from compact_agent.context import ContextManager
from compact_agent.context.testing import reply_to_library_request

from .runbook_agent import runbook_agent


def provider(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
    if (reply := reply_to_library_request(messages, "Read pages 1-4; the deploy waits for approval.")) is not None:
        return reply
    last = messages[-1]
    returned = [p for p in last.parts if isinstance(p, ToolReturnPart)] if isinstance(last, ModelRequest) else []
    if returned and returned[0].tool_name == "deploy":
        return ModelResponse(parts=[TextPart(f"Deployed: {returned[0].content}")])
    pages = sum(isinstance(p, ToolReturnPart) for m in messages for p in m.parts)
    if pages < 4:
        return ModelResponse(parts=[ToolCallPart("read", {"page": pages + 1}, tool_call_id=f"read_{pages + 1}")])
    return ModelResponse(parts=[ToolCallPart("deploy", {"target": "prod"}, tool_call_id="deploy_1")])


async def test_a_history_waiting_on_a_deferred_call_is_compacted_and_goes_on() -> None:
    cm = ContextManager(window=64_000)
    agent = runbook_agent(FunctionModel(provider), cm)
    first = await agent.run("Read the runbook, then deploy.")
    assert isinstance(first.output, DeferredToolRequests)
    waiting = first.all_messages()

    compacted = await cm.compact_now(waiting, model=FunctionModel(provider))

    assert len(compacted) < len(waiting)
    last = compacted[-1]
    assert isinstance(last, ModelResponse) and [p.tool_call_id for p in last.parts
                                                if isinstance(p, ToolCallPart)] == ["deploy_1"]
    done = await agent.run(message_history=compacted,
                           deferred_tool_results=DeferredToolResults(approvals={"deploy_1": ToolApproved()}))
    assert done.output == "Deployed: prod is live"
