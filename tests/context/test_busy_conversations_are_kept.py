"""A conversation with a run in progress is never let go past `max_conversations`: it went out of
`cm.conversation(id)` while its run still worked on it, and a new run with its id started afresh,
without the history the first run was still adding to. The least recently used idle one goes
instead; when every one is busy, more than `max_conversations` are kept until one is done."""

from __future__ import annotations

import asyncio

from pydantic_ai import Agent
from pydantic_ai.messages import ModelMessage, ModelResponse, TextPart, ToolCallPart
from pydantic_ai.models.function import AgentInfo, FunctionModel

from compact_agent.context import ContextManager


def waiting_agent(cm: ContextManager, gates: dict[str, asyncio.Event]) -> Agent[None, str]:
    """One tool call per run, the tool waiting on the run's gate (if it has one), then an answer."""

    def model(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        if any(p.part_kind == "tool-return" for p in messages[-1].parts):
            return ModelResponse(parts=[TextPart("done")])
        prompt = next(str(p.content) for p in messages[0].parts if p.part_kind == "user-prompt")
        return ModelResponse(parts=[ToolCallPart("wait", {"key": prompt})])

    agent: Agent[None, str] = Agent(FunctionModel(model), capabilities=[cm])

    @agent.tool_plain
    async def wait(key: str) -> str:
        """Wait for the key's gate."""
        if key in gates:
            await gates[key].wait()
        return f"{key} waited"

    return agent


async def settle(until: object) -> None:
    for _ in range(200):
        if until():  # type: ignore[operator]
            return
        await asyncio.sleep(0)
    raise AssertionError("never happened")


async def test_a_running_conversation_is_kept_and_an_idle_one_goes_instead() -> None:
    cm = ContextManager(window=16_000, max_conversations=2)
    gates = {"b": asyncio.Event()}
    agent = waiting_agent(cm, gates)
    await agent.run("first", conversation_id="first")
    b_run = asyncio.ensure_future(agent.run("b", conversation_id="b"))
    await settle(lambda: cm.conversation("b") is not None and cm.conversation("b")._running is not None)  # type: ignore[union-attr]
    b_state = cm.conversation("b")
    await agent.run("c", conversation_id="c")  # three now: b runs, so c (idle at its end) goes
    assert cm.conversation("b") is b_state and cm.conversation("c") is None
    gates["b"].set()
    result = await b_run
    assert cm.conversation("b") is b_state and cm.conversation("first") is cm
    assert b_state is not None and b_state._sync.held == result.all_messages()  # its history, kept


async def test_with_every_conversation_busy_the_limit_is_exceeded_until_one_is_done() -> None:
    cm = ContextManager(window=16_000, max_conversations=1)
    gates = {"b": asyncio.Event(), "c": asyncio.Event()}
    agent = waiting_agent(cm, gates)
    await agent.run("first", conversation_id="first")
    runs = {key: asyncio.ensure_future(agent.run(key, conversation_id=key)) for key in ("b", "c")}
    await settle(lambda: all(cm.conversation(k) is not None and cm.conversation(k)._running for k in runs))  # type: ignore[union-attr]
    states = {key: cm.conversation(key) for key in runs}
    gates["b"].set()
    await runs["b"]  # b done: it goes, c still runs and stays
    assert cm.conversation("b") is None and cm.conversation("c") is states["c"]
    gates["c"].set()
    await runs["c"]
    assert cm.conversation("c") is None and cm.conversation("first") is cm
