"""`compact_now` of a branch given its own `conversation_id=` (as `ConversationBusy` advises for runs
of one history at once) compacts it in the branch's conversation, the one its next run runs in.

The branch's history carries the trunk's id on the messages before the branch and its own after:
pydantic-ai runs a run given that history in the newest one named, but `compact_now` refused it,
"these messages belong to 2 conversations (…, branch-b)".
"""

from __future__ import annotations

import asyncio

from pydantic_ai import Agent
from pydantic_ai.messages import ModelMessage, ModelResponse, TextPart
from pydantic_ai.models.function import AgentInfo, FunctionModel
from pydantic_ai.usage import RequestUsage

from compact_agent.context import ContextManager, InMemoryStore
from compact_agent.context.testing import reply_to_library_request


def model(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
    usage = RequestUsage(input_tokens=sum(len(str(getattr(p, "content", ""))) for m in messages for p in m.parts) // 4
                         + 100, output_tokens=5)
    if (summary := reply_to_library_request(messages, usage=usage)) is not None:
        return summary
    return ModelResponse(parts=[TextPart("ok " * 200)], usage=usage)


async def test_compact_now_of_a_branch_compacts_it_in_the_branchs_conversation() -> None:
    cm = ContextManager(window=8_000)
    agent = Agent(FunctionModel(model), capabilities=[cm])
    trunk = (await agent.run("start " * 300)).all_messages()
    trunk = (await agent.run("more " * 300, message_history=trunk)).all_messages()
    a, b = await asyncio.gather(agent.run("branch a", message_history=trunk),
                                agent.run("branch b", message_history=trunk, conversation_id="branch-b"))
    branch = b.all_messages()
    trunk_id = trunk[-1].conversation_id
    assert trunk_id is not None and {m.conversation_id for m in branch} == {trunk_id, "branch-b"}

    compacted = await cm.compact_now(branch)

    state, trunk_state = cm.conversation("branch-b"), cm.conversation(trunk_id)
    assert state is not None and trunk_state is not None and state is not trunk_state
    assert len(state.compactions) == 1 and not trunk_state.compactions
    assert isinstance(state.store, InMemoryStore) and state.store.messages == compacted
    assert state.store.archives == [branch]
    assert isinstance(trunk_state.store, InMemoryStore) and trunk_state.store.messages == a.all_messages()
    assert compacted[0].conversation_id == "branch-b"
    after = await agent.run("branch b again", message_history=compacted)
    assert after.all_messages()[-1].conversation_id == "branch-b" and len(state.compactions) == 1
