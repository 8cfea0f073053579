"""A provider that reuses tool call ids from one response to the next (pydantic-ai's `TestModel`
gives every call of a tool the same id, retried or called again after a compaction; a
`FunctionModel` or a server may do the same).
Every layer tells results apart by id: the first large result's preview was sent in place of every
later result with its id, so the model read page 1 twelve times, and `compact_now` of a history
waiting on an approval whose call reused an earlier id raised "compaction would part tool calls
from their results". A reused id is now named apart (`<id>_2`, ...) in the history, the call with
its result; a call the history still waits on keeps its id."""

from __future__ import annotations

from pydantic_ai import Agent, DeferredToolRequests, DeferredToolResults
from pydantic_ai.messages import (
    ModelMessage,
    ModelRequest,
    ModelResponse,
    RetryPromptPart,
    TextPart,
    ToolCallPart,
    ToolReturnPart,
)
from pydantic_ai.models.function import AgentInfo, FunctionModel
from pydantic_ai.usage import RequestUsage, UsageLimits

from compact_agent.context import ContextManager
from compact_agent.context.testing import reply_to_library_request

PAGES = 12


def page_text(n: int) -> str:
    return f"page {n}: " + " ".join(f"w{n}-{i}" for i in range(8_000 if n == 1 else 250))


def results(message: ModelMessage) -> list[ToolReturnPart | RetryPromptPart]:
    if not isinstance(message, ModelRequest):
        return []
    return [p for p in message.parts if isinstance(p, ToolReturnPart | RetryPromptPart) and p.tool_name]


def pairing_errors(messages: list[ModelMessage]) -> list[str]:
    """Each result answers a call of the response right before it, and each call of a response
    that has a request after it is answered there (as a provider checks)."""
    errors = []
    for i, m in enumerate(messages):
        if isinstance(m, ModelRequest):
            before = messages[i - 1] if i else None
            asked = [p.tool_call_id for p in before.parts if isinstance(p, ToolCallPart)] \
                if isinstance(before, ModelResponse) else []
            errors += [f"result {r.tool_call_id} of request {i} answers no call before it"
                       for r in results(m) if r.tool_call_id not in asked]
        elif i + 1 < len(messages):
            given = [r.tool_call_id for r in results(messages[i + 1])]
            errors += [f"call {p.tool_call_id} of response {i} has no result" for p in m.parts
                       if isinstance(p, ToolCallPart) and p.tool_call_id not in given]
    return errors


class Provider:
    """Reads page after page, each call with the id `call_0`; records what it was sent."""

    def __init__(self) -> None:
        self.read: list[str] = []

    def __call__(self, messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        size = sum(len(str(getattr(p, "content", ""))) for m in messages for p in m.parts) // 4
        usage = RequestUsage(input_tokens=size + 200, output_tokens=20)
        if (reply := reply_to_library_request(messages, "Read the pages so far.", usage=usage)) is not None:
            return reply
        self.read += [str(r.content).split(":")[0] for r in results(messages[-1])]
        if len(self.read) < PAGES:
            return ModelResponse(parts=[ToolCallPart("read", {"page": len(self.read) + 1}, tool_call_id="call_0")],
                                 usage=usage)
        return ModelResponse(parts=[TextPart("all read")], usage=usage)


async def test_each_result_the_model_reads_is_its_own_when_the_provider_reuses_call_ids() -> None:
    provider = Provider()
    agent: Agent[None, str] = Agent(FunctionModel(provider), capabilities=[ContextManager(window=16_000)])

    @agent.tool_plain
    def read(page: int) -> str:
        return page_text(page)

    result = await agent.run("Read every page.", usage_limits=UsageLimits(request_limit=50))
    assert result.output == "all read"
    assert provider.read == [f"page {n}" for n in range(1, PAGES + 1)]  # was "page 1" twelve times
    ids = [p.tool_call_id for m in result.all_messages() if isinstance(m, ModelResponse)
           for p in m.parts if isinstance(p, ToolCallPart)]
    assert ids == ["call_0", *(f"call_0_{k}" for k in range(2, PAGES + 1))]
    assert pairing_errors(result.all_messages()) == []


async def test_a_call_waiting_for_approval_keeps_the_id_it_was_asked_with() -> None:
    def provider(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        if (reply := reply_to_library_request(messages, "Checked; the deploy waits.")) is not None:
            return reply
        done = results(messages[-1])
        if done and done[0].tool_name == "deploy":
            return ModelResponse(parts=[TextPart(f"deploy: {done[0].content}")])
        return ModelResponse(parts=[ToolCallPart("deploy" if done else "check", {}, tool_call_id="call_0")])

    agent: Agent[None, str | DeferredToolRequests] = Agent(
        FunctionModel(provider), output_type=[str, DeferredToolRequests], capabilities=[cm := ContextManager(window=16_000)])

    @agent.tool_plain
    def check() -> str:
        return "ready: " + " ".join(f"test-{i} ok" for i in range(2_000))

    @agent.tool_plain(requires_approval=True)
    def deploy() -> str:
        return "deployed"

    first = await agent.run("Deploy.")
    assert isinstance(first.output, DeferredToolRequests)
    assert [c.tool_call_id for c in first.output.approvals] == ["call_0"]
    waiting = await cm.compact_now(first.all_messages())  # compacted while it waits
    assert [p.tool_call_id for p in waiting[-1].parts if isinstance(p, ToolCallPart)] == ["call_0"]
    second = await agent.run(message_history=waiting,
                             deferred_tool_results=DeferredToolResults(approvals={"call_0": True}))
    assert second.output == "deploy: deployed"
    assert pairing_errors(second.all_messages()) == []


def test_two_calls_of_one_response_with_one_id_each_keep_their_own_result() -> None:
    """Two calls in one response may share an id too: the n-th call is paired with the n-th result.
    Naming the second apart renamed both results, and the first call went without one."""
    from pydantic_ai.messages import UserPromptPart

    from compact_agent.context.plumbing.rounds import distinct_call_ids, unpaired

    history: list[ModelMessage] = [
        ModelRequest(parts=[UserPromptPart("read both")]),
        ModelResponse(parts=[ToolCallPart("read", {"page": 1}, tool_call_id="c"),
                             ToolCallPart("read", {"page": 2}, tool_call_id="c")]),
        ModelRequest(parts=[ToolReturnPart("read", "one", tool_call_id="c"),
                            ToolReturnPart("read", "two", tool_call_id="c")]),
        ModelResponse(parts=[TextPart("done")]),
    ]
    assert distinct_call_ids(history) == 1
    assert unpaired(history) == (set(), set())
    calls = [p.tool_call_id for p in history[1].parts if isinstance(p, ToolCallPart)]
    results = [(p.tool_call_id, p.content) for p in history[2].parts if isinstance(p, ToolReturnPart)]
    assert calls == ["c", "c_2"] and results == [("c", "one"), ("c_2", "two")]
