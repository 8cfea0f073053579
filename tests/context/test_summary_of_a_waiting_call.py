"""`compact_now` of a history that waits on a call (a tool that needs a person's approval) sends a
summary request a provider takes: the waiting call is answered there by a stand-in that says it has
not run, while the history keeps it waiting. The request used to carry the call with no result, so
the strict server refused it ('tool_call_ids did not have response messages') and the summary came
only from the fallback, the conversation re-sent as text, uncached."""

from __future__ import annotations

from pydantic_ai import DeferredToolRequests, DeferredToolResults, ToolApproved
from pydantic_ai.messages import ModelResponse, ToolCallPart
from pydantic_ai.models.openai import OpenAIChatModel
from pydantic_ai.providers.openai import OpenAIProvider

from compact_agent.context import CompactionSettings, ContextManager
from tests.fakes.openai_server import ChatRequest, FakeOpenAIServer, Reply, message_text, tool_results

from .runbook_agent import runbook_agent


def is_summary_request(req: ChatRequest) -> bool:
    return "<summary>" in req.last_user_text()


def answer(req: ChatRequest) -> Reply:
    if is_summary_request(req):
        return Reply.text("<summary>Read pages 1-4; the deploy waits for approval.</summary>")
    done = tool_results(req)
    if done and "is live" in message_text(done[0]):
        return Reply.text("Deployed.")
    pages = sum(m["role"] == "tool" for m in req.messages)
    if pages < 4:
        return Reply.tools([("read", {"page": pages + 1})])
    return Reply.tools([("deploy", {"target": "prod"}), ("read", {"page": 5})])  # one waits, one runs


async def test_compact_now_while_a_call_waits_for_approval_sends_no_call_without_its_result() -> None:
    with FakeOpenAIServer(answer, window=64_000) as server:
        model = OpenAIChatModel("fake-model", provider=OpenAIProvider(base_url=server.base_url, api_key="k"))
        cm = ContextManager(window=64_000, settings=CompactionSettings(compaction_records=False))
        agent = runbook_agent(model, cm)
        first = await agent.run("Read the runbook, then deploy.")
        assert isinstance(first.output, DeferredToolRequests)
        [waiting] = first.output.approvals

        compacted = await cm.compact_now(first.all_messages())

        summaries = [r for r in server.requests if is_summary_request(r)]
        assert server.rejected == []
        assert len(summaries) == 1 and summaries[0].tools  # the shared-prefix request, taken the first time
        stand_in = [m for m in summaries[0].messages if m.get("tool_call_id") == waiting.tool_call_id]
        assert len(stand_in) == 1 and "not run yet" in message_text(stand_in[0])
        # The history itself still waits on the call: its result comes with the approval.
        responses = [m for m in compacted if isinstance(m, ModelResponse)]
        assert waiting.tool_call_id in [p.tool_call_id for p in responses[-1].parts if isinstance(p, ToolCallPart)]

        done = await agent.run(message_history=compacted, deferred_tool_results=DeferredToolResults(
            approvals={waiting.tool_call_id: ToolApproved()}))
        assert done.output == "Deployed."
        assert server.rejected == []
