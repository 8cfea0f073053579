"""A model that is no server (pydantic-ai's FunctionModel, TestModel) teaches no window.

Such a model reports as its usage its own rough count of the request (about a word a token), not a
server's. The calibration read that count as a server cutting prompts to its window without saying
so (plumbing/silent_cut.py: reports that stop growing while the requests grow) and learned a window
from it: a 32,000-token manager in a test whose microcompact kept six results, not five, learned
1,587, and the compaction that followed failed, "the summary request would take 2,031 tokens of the
1,587-token window". A library user testing an agent with FunctionModel got that with no warning.
Its reports still calibrate the estimate; they are never read as a cut.
"""

from __future__ import annotations

from pydantic_ai import Agent
from pydantic_ai.messages import ModelMessage, ModelRequest, ModelResponse, TextPart, ToolReturnPart
from pydantic_ai.models.function import AgentInfo, FunctionModel
from pydantic_ai.models.test import TestModel
from pydantic_ai.usage import RequestUsage

from compact_agent.context import (
    CompactionSettings,
    ContextManager,
    Event,
    InMemoryStore,
    WindowTooSmallError,
)
from compact_agent.context.plumbing.silent_cut import a_server

from .fixing_agent import PASSED, fix_then_read, provider


async def test_a_function_models_own_counts_teach_no_window_and_the_compaction_goes_ahead() -> None:
    """The run of tests/context/test_kept_results_newest_run.py (fixing_agent.py) with microcompact
    keeping six results."""
    events: list[Event] = []
    settings = CompactionSettings(compaction_records=False, microcompact_keep_recent=6)
    cm = ContextManager(window=32_000, store=InMemoryStore(), settings=settings, event_handler=events.append)
    history = await fix_then_read(cm)

    assert cm.limits.window == 32_000
    assert cm.calibration.cut_to() is None
    assert [(e.layer, e.action, e.detail) for e in events if e.layer == "window"
            or "cut" in str((e.detail or {}).get("reason", ""))] == []
    compacted = await cm.compact_now(history, model=FunctionModel(provider))
    returns = [p for m in compacted if isinstance(m, ModelRequest) for p in m.parts if isinstance(p, ToolReturnPart)]
    assert [p.content for p in returns if p.tool_name == "run_tests"] == [PASSED]


def _reports_of_one_size(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
    """Two reports of one size for requests that grew: from a server, a prompt cut to its window."""
    return ModelResponse(parts=[TextPart("ok " * 300)], usage=RequestUsage(input_tokens=3_000, output_tokens=300))


class _Server(FunctionModel):
    """The same function, as a server's model says it is one (its `system` names the provider)."""

    @property
    def system(self) -> str:
        return "ollama"


async def _window_after(model: FunctionModel | TestModel) -> tuple[int, int | None]:
    cm = ContextManager(window=32_000, store=InMemoryStore())
    agent = Agent(model, capabilities=[cm])
    history: list[ModelMessage] = []
    for i in range(4):
        try:
            history = (await agent.run(f"step {i}: " + "grow " * 1_500, message_history=history)).all_messages()
        except WindowTooSmallError:  # the cut request asked again within the 3,000 learned: too small for it
            break
    return cm.limits.window, cm.calibration.cut_to()


async def test_reports_that_stop_growing_are_a_cut_from_a_server_and_none_from_a_function_model() -> None:
    assert await _window_after(FunctionModel(_reports_of_one_size)) == (32_000, None)
    window, cut = await _window_after(_Server(_reports_of_one_size))
    assert cut is not None and window < 32_000  # the same reports from a server: a window learned


def test_what_counts_as_a_server() -> None:
    from pydantic_ai.models.openai import OpenAIChatModel
    from pydantic_ai.providers.openai import OpenAIProvider

    served = OpenAIChatModel("llama", provider=OpenAIProvider(base_url="http://127.0.0.1:9/v1", api_key="x"))
    assert [a_server(m) for m in (FunctionModel(_reports_of_one_size), TestModel(), _Server(_reports_of_one_size),
                                  served)] == [False, False, True, True]


async def test_a_test_models_counts_teach_no_window() -> None:
    assert await _window_after(TestModel(custom_output_text="ok")) == (32_000, None)
