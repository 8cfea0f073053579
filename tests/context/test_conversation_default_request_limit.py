"""A conversation carried whole reaches pydantic-ai's default `request_limit` where the agent alone does.

pydantic-ai's `Conversation` carries its usage from run to run (`Conversation.usage`), and each run
holds it to the default `UsageLimits` (a `request_limit` of 50, counting the responses committed to
the history: the steps of the agent loop). The library counted its summaries there too, so the
turns of docs/library.md's conversation-store example stopped a turn early: four turns of twelve
steps (48) ended in the fourth with "request_limit of 50", the same agent without the library
finished them. Its requests now add their tokens and cost, not steps (compaction/in_run.py).
"""

from __future__ import annotations

from pydantic_ai import Agent
from pydantic_ai.conversation import Conversation
from pydantic_ai.conversation_store import ConversationStore, InMemoryConversationStore
from pydantic_ai.messages import ModelMessage, ModelResponse, TextPart, ToolCallPart
from pydantic_ai.models.function import AgentInfo, FunctionModel
from pydantic_ai.run import AgentRunResult
from pydantic_ai.usage import RequestUsage

from compact_agent.context import CompactionSettings, ContextManager
from compact_agent.context.testing import library_request, reply_to_library_request

STEPS = 12  # a turn's requests: eleven reads and the answer


class Provider:
    """Reads a part per step, `STEPS - 1` of them each turn, then answers; summarises when asked."""

    def __init__(self) -> None:
        self.step = self.summaries = 0

    def __call__(self, messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        sent = sum(len(str(getattr(p, "content", "") or getattr(p, "args", ""))) for m in messages for p in m.parts)
        usage = RequestUsage(input_tokens=sent // 4 + 100, output_tokens=20)
        if library_request(messages) is not None:
            self.summaries += 1
            reply = reply_to_library_request(messages, "The parts read so far.", usage=usage)
            assert reply is not None
            return reply
        self.step += 1
        if self.step < STEPS:
            return ModelResponse(parts=[ToolCallPart("read", {"n": self.step})], usage=usage)
        return ModelResponse(parts=[TextPart("done")], usage=usage)


async def turn(agent: Agent[None, str], store: ConversationStore, prompt: str) -> AgentRunResult[str]:
    """docs/library.md's turn of a stored conversation: load it, run the turn, save what it added."""
    conversation = await store.load("c1")
    if conversation is None:
        conversation = Conversation(conversation_id="c1", new_message_index=0)
    result = await agent.run(prompt, conversation=conversation)
    await store.save(result)
    return result


async def four_turns(cm: ContextManager | None) -> tuple[list[int], Provider]:
    provider = Provider()
    agent: Agent[None, str] = Agent(FunctionModel(provider), capabilities=[cm] if cm is not None else [])

    @agent.tool_plain
    def read(n: int) -> str:
        """One part."""
        return f"part {n}: " + "text " * 200

    store, requests = InMemoryConversationStore(), []
    for i in range(4):
        provider.step = 0
        result = await turn(agent, store, f"Read the parts of chapter {i}.")
        assert result.output == "done"
        requests.append(result.conversation.usage.requests)
    return requests, provider


async def test_four_turns_the_agent_alone_finishes_finish_with_the_library() -> None:
    alone, _ = await four_turns(None)
    assert alone == [12, 24, 36, 48]  # within pydantic-ai's default request_limit of 50
    cm = ContextManager(window=6_000, settings=CompactionSettings(compaction_records=False))
    with_library, provider = await four_turns(cm)
    assert provider.summaries >= 3 and len(cm.compactions) >= 3
    assert with_library == alone
