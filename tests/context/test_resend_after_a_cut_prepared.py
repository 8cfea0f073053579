"""The request a server cut without saying so is sent again within the window learned
(`ContextManager._ask_again`), by the model itself: pydantic-ai's agent prepares a request's messages
first (`Model.prepare_messages`), which states a tool that joined the run (a
`ToolAvailabilityDeltaPart`) as the model takes it. Sent unprepared, the part reached the model as
it was, which a provider's model refuses ("cannot be rendered by this model")."""

from __future__ import annotations

from pydantic_ai import Agent
from pydantic_ai.messages import ModelMessage, ModelResponse, TextPart, ToolCallPart
from pydantic_ai.models.function import AgentInfo, FunctionModel
from pydantic_ai.toolsets import FunctionToolset
from pydantic_ai.usage import RequestUsage

from compact_agent.context import ContextManager, Event
from compact_agent.context.compaction.text_only import UNPREPARED


class LocalServer(FunctionModel):
    """A model whose reports are a server's (an Ollama one cuts prompts to its window in silence)."""

    @property
    def system(self) -> str:
        return "ollama"


def test_the_request_sent_again_after_a_cut_is_prepared_as_the_agent_s() -> None:
    sizes = iter([1_000, 4_096, 4_090, 4_090, 4_090])  # the third report: cut to 4,090 of far more
    seen: list[set[str]] = []

    def cutting(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        seen.append({p.part_kind for m in messages for p in m.parts})
        usage = RequestUsage(input_tokens=next(sizes), output_tokens=5)
        if len(seen) == 2:
            return ModelResponse(parts=[ToolCallPart("unlock", {}, tool_call_id="u1")], usage=usage)
        return ModelResponse(parts=[TextPart("ok " * 300)], usage=usage)

    tools = FunctionToolset()

    def secret() -> str:
        """A tool the run gains."""
        return "s"

    @tools.tool_plain
    def unlock() -> str:
        """Unlock."""
        tools.add_function(secret)
        return "unlocked " * 600

    events: list[Event] = []
    cm = ContextManager(window=64_000, event_handler=events.append)
    agent = Agent(LocalServer(cutting), toolsets=[tools], capabilities=[cm])
    history = agent.run_sync("start " * 700).all_messages()
    after = agent.run_sync("more " * 3_000, message_history=history).all_messages()
    assert cm.calibration.cut_to() is not None  # the server was found cutting, and the request sent again
    assert [e for e in events if e.layer == "calibration"], events
    assert len(seen) == 4
    assert "tool-availability-delta" in {p.part_kind for m in after for p in m.parts}  # the run gained one
    assert all(kinds.isdisjoint(UNPREPARED) for kinds in seen), seen
