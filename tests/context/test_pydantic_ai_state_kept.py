"""What pydantic-ai (2.68) reads back from the history survives a compaction and the view layers.

pydantic-ai keeps no record of these but the history, and reads it again before every request:
- the tools the model found with tool search: only those of a `DeferredLoadingToolset` that a
  `search_tools` return (or a `ToolAvailabilityDeltaPart`) names are offered, and a call of
  another is answered "Unknown tool name" until the tool's retries run out;
- the on-demand capabilities loaded (`Toolset(..., defer_loading=True)` loaded by the model's
  `load_capability` call): their tools are offered while a load is in the history;
- an `on_change='append'` instruction: each request states the value its window began with
  (`AgentInfo.instructions` here) and then every change after it (the system parts pydantic-ai
  renders from `InstructionDeltaPart`s), so the newest value said is the current one.
A compaction folded the messages holding them: the found tools were gone, the capability unloaded
(the run ended "Tool 'alpha_diag_2' exceeded max retries count"), and the request right after it
stated the instruction's old value. A view layer clearing a `search_tools` return left a text where
pydantic-ai reads its own typed result.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import replace
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from pydantic_ai import Agent, Tool
from pydantic_ai.capabilities import Toolset
from pydantic_ai.messages import (
    AgentInstructionSource,
    InstructionBaselinePart,
    InstructionDeltaPart,
    InstructionId,
    InstructionPart,
    ModelMessage,
    ModelRequest,
    ModelResponse,
    SystemPromptPart,
    TextPart,
    ToolAvailabilityDeltaPart,
    ToolCallPart,
    ToolReturn,
    ToolReturnPart,
    ToolSearchReturnPart,
    UserPromptPart,
)
from pydantic_ai.models.function import AgentInfo, FunctionModel
from pydantic_ai.toolsets import FunctionToolset
from pydantic_ai.toolsets.deferred_loading import DeferredLoadingToolset
from pydantic_ai.usage import UsageLimits

from compact_agent.context import CompactionSettings, ContextManager, Event
from compact_agent.context.layers.collapse import ContextCollapse
from compact_agent.context.plumbing import history_state
from compact_agent.context.plumbing.tokens import estimate
from compact_agent.context.testing import reply_to_library_request
from tests.context.test_collapse import budget as collapse_budget
from tests.context.test_collapse import long_conv

WINDOW = 8_000
STEPS = 30


def _diag(group: str, k: int) -> Tool[None]:
    def run(x: int) -> str:
        return f"{group} diag {k} ok for {x}"
    return Tool(run, name=f"{group}_diag_{k}", description=f"{group} diagnostic {k}.")


RULE = "Run a diagnostic only on a service inspected first (DIAG-RULE)."


def _diagnostics() -> FunctionToolset[None]:
    return FunctionToolset([_diag(g, k) for g in ("alpha", "beta") for k in range(3)], instructions=RULE)


def _said(messages: list[ModelMessage], info: AgentInfo, text: str) -> bool:
    """Whether a request states `text`: in its instructions, or in a message (a loaded capability's
    instructions come after its load, as `<system>`-tagged user text to a `FunctionModel`)."""
    return text in (info.instructions or "") or any(
        isinstance(p, SystemPromptPart | UserPromptPart) and isinstance(p.content, str) and text in p.content
        for m in messages if isinstance(m, ModelRequest) for p in m.parts)


def _model(first: ToolCallPart, seen: list[tuple[int, bool]], ruled: list[tuple[int, bool]] | None = None
           ) -> Callable[[list[ModelMessage], AgentInfo], ModelResponse]:
    """Step 1: `first` (the search or the load); then `inspect`, and `alpha_diag_2` every third step
    (`seen`: whether it is offered then; `ruled`: whether the diagnostics' instructions are stated)."""
    ruled = [] if ruled is None else ruled
    step = {"n": 0}

    def model(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        if (reply := reply_to_library_request(messages, "Found alpha_diag_2; inspecting services.")) is not None:
            return reply
        step["n"] += 1
        n = step["n"]
        if n == 1:
            return ModelResponse(parts=[first])
        if n > STEPS:
            return ModelResponse(parts=[TextPart("all inspected")])
        if n % 3 == 0:
            seen.append((n, "alpha_diag_2" in {t.name for t in info.function_tools}))
            ruled.append((n, _said(messages, info, "DIAG-RULE")))
            return ModelResponse(parts=[ToolCallPart("alpha_diag_2", {"x": n})])
        return ModelResponse(parts=[ToolCallPart("inspect", {"n": n})])

    return model


def _with_inspect(agent: Agent[None, str]) -> Agent[None, str]:
    @agent.tool_plain
    def inspect(n: int) -> str:
        """Inspect a service."""
        return f"service {n}: " + " ".join(f"metric{n}-{i}=ok" for i in range(250))
    return agent


@pytest.mark.parametrize("records", [True, False], ids=["records", "summaries"])
async def test_tools_found_with_tool_search_stay_offered_after_compactions(records: bool) -> None:
    seen: list[tuple[int, bool]] = []
    events: list[Event] = []
    cm = ContextManager(window=WINDOW, event_handler=events.append,
                        settings=CompactionSettings(compaction_records=records))
    hidden: DeferredLoadingToolset[None] = DeferredLoadingToolset(_diagnostics())
    agent: Agent[None, str] = Agent(FunctionModel(_model(ToolCallPart("search_tools", {"queries": ["alpha"]}), seen)),
                                    deps_type=type(None), capabilities=[cm], toolsets=[hidden], retries=2)
    _with_inspect(agent)
    result = await agent.run("Find the alpha diagnostics, then inspect services.",
                             usage_limits=UsageLimits(request_limit=200))
    assert result.output == "all inspected"
    compactions = [e for e in events if e.layer == "compact"]
    assert len(compactions) >= 2
    assert seen and all(offered for _, offered in seen), seen
    # What keeps them is one part naming the tools found, on the compaction message (no search kept).
    head = result.all_messages()[0]
    assert [p.tools_added for p in head.parts if isinstance(p, ToolAvailabilityDeltaPart)] == [
        ["alpha_diag_0", "alpha_diag_1", "alpha_diag_2"]]


async def test_tools_a_tool_revealed_stay_offered_after_compactions() -> None:
    """A tool's `ToolReturn(tools=[...])` reveals deferred tools: pydantic-ai records a
    `ToolAvailabilityDeltaPart` after its return, which a compaction folded too."""
    seen: list[tuple[int, bool]] = []
    events: list[Event] = []
    cm = ContextManager(window=WINDOW, event_handler=events.append)
    hidden: DeferredLoadingToolset[None] = DeferredLoadingToolset(_diagnostics())
    agent: Agent[None, str] = Agent(FunctionModel(_model(ToolCallPart("open_diagnostics", {}), seen)),
                                    deps_type=type(None), capabilities=[cm], toolsets=[hidden], retries=2)
    _with_inspect(agent)

    @agent.tool_plain
    def open_diagnostics() -> ToolReturn:
        """Open the alpha diagnostics."""
        return ToolReturn(return_value="alpha diagnostics open", tools=["alpha_diag_2"])

    result = await agent.run("Open the diagnostics, then inspect services.",
                             usage_limits=UsageLimits(request_limit=200))
    assert result.output == "all inspected"
    assert len([e for e in events if e.layer == "compact"]) >= 2
    assert seen and all(offered for _, offered in seen), seen


async def test_a_capability_the_model_loaded_stays_loaded_after_compactions() -> None:
    seen: list[tuple[int, bool]] = []
    events: list[Event] = []
    cm = ContextManager(window=WINDOW, event_handler=events.append)
    ruled: list[tuple[int, bool]] = []
    diag: Toolset[None] = Toolset(_diagnostics(), id="diag", description="diagnostics", defer_loading=True)
    agent: Agent[None, str] = Agent(FunctionModel(_model(ToolCallPart("load_capability", {"id": "diag"}), seen,
                                                         ruled)),
                                    deps_type=type(None), capabilities=[diag, cm], retries=2)
    _with_inspect(agent)
    result = await agent.run("Load the diagnostics, then inspect services.", usage_limits=UsageLimits(request_limit=200))
    assert result.output == "all inspected"
    assert len([e for e in events if e.layer == "compact"]) >= 2
    assert seen and all(offered for _, offered in seen), seen
    assert ruled and all(stated for _, stated in ruled), ruled  # its instructions, stated after the load


PHASE = re.compile(r'<pyai:context id="agent:phase">\s*phase ([A-Z])')


def _phases_said(messages: list[ModelMessage], info: AgentInfo) -> list[str]:
    """The phase values a request states, in order: its window's first value, then each change (a
    `FunctionModel` has no system messages after the first: pydantic-ai sends a change as user text
    in `<system>` tags, a `<pyai:context>` element with the block's id)."""
    said = PHASE.findall(info.instructions or "")
    for m in messages:
        if isinstance(m, ModelRequest):
            said += [x for p in m.parts if isinstance(p, SystemPromptPart | UserPromptPart)
                     and isinstance(p.content, str) for x in PHASE.findall(p.content)]
    return said


@pytest.mark.parametrize("records", [True, False], ids=["records", "summaries"])
async def test_the_request_after_a_compaction_states_an_appended_instruction_as_it_is(records: bool) -> None:
    phase = {"now": "A"}
    wrong: list[tuple[int, str, list[str]]] = []
    events: list[Event] = []
    step = {"n": 0}

    def model(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        if (reply := reply_to_library_request(messages, "Inspecting services.")) is not None:
            return reply
        step["n"] += 1
        n = step["n"]
        said = _phases_said(messages, info)
        if not said or said[-1] != phase["now"]:
            wrong.append((n, phase["now"], said))
        if n == 4:
            phase["now"] = "B"
        if n == 14:
            phase["now"] = "C"
        if n > 22:
            return ModelResponse(parts=[TextPart("done")])
        return ModelResponse(parts=[ToolCallPart("inspect", {"n": n})])

    cm = ContextManager(window=WINDOW, event_handler=events.append,
                        settings=CompactionSettings(compaction_records=records))
    agent: Agent[None, str] = Agent(FunctionModel(model), capabilities=[cm])
    _with_inspect(agent)

    @agent.instructions(name="phase", on_change="append")
    def current_phase() -> str:
        return f"phase {phase['now']}"

    result = await agent.run("Inspect services.", usage_limits=UsageLimits(request_limit=200))
    assert result.output == "done"
    assert len([e for e in events if e.layer == "compact"]) >= 2
    assert wrong == []


def _old(minutes: int) -> datetime:
    return datetime.now(UTC) - timedelta(hours=3) + timedelta(minutes=minutes)


async def test_a_cleared_search_return_is_sent_as_pydantic_ai_wrote_it() -> None:
    """Microcompact clears old results of the tools it may (here `search_tools` among them) once the
    cache expired: the search's return is kept whole, and the tools it found stay found."""
    found = ToolSearchReturnPart(content={"discovered_tools": [{"name": "alpha_diag_2"}]}, tool_call_id="s1",
                                 timestamp=_old(0))
    messages: list[ModelMessage] = [
        ModelRequest(parts=[UserPromptPart("go", timestamp=_old(0))]),
        ModelResponse(parts=[ToolCallPart("search_tools", {"queries": ["alpha"]}, tool_call_id="s1")],
                      timestamp=_old(0)),
        ModelRequest(parts=[found]),
    ]
    for i in range(CompactionSettings().microcompact_keep_recent + 3):  # more than the layer keeps
        messages += [ModelResponse(parts=[ToolCallPart("read_file", {"path": f"f{i}"}, tool_call_id=f"r{i}")],
                                   timestamp=_old(i + 1)),
                     ModelRequest(parts=[ToolReturnPart("read_file", "x " * 2_000, tool_call_id=f"r{i}",
                                                        timestamp=_old(i + 1))])]
    events: list[Event] = []
    cm = ContextManager(window=200_000, event_handler=events.append, compactable_tools=["read_file", "search_tools"])
    view, _, _ = await cm.prepare_view(messages)
    cleared = [e for e in events if e.layer == "microcompact"]
    assert cleared and "s1" not in cleared[0].ids  # the layer did clear, the others
    returns = [p for m in view if isinstance(m, ModelRequest) for p in m.parts if isinstance(p, ToolSearchReturnPart)]
    assert returns == [found]


def test_a_collapse_fold_keeps_the_state_it_folded_on_its_digest(tmp_path: Path) -> None:
    """L4 folds the oldest rounds into a digest: a reveal and an instruction's change among them are
    said again on the message holding the digest (where the fold puts it on every request), so the
    view gives pydantic-ai the state the history does; the view after it is as the layer made it."""
    conv = long_conv()
    messages = list(conv.messages)
    phase = InstructionId(source=AgentInstructionSource(), name="phase")
    baseline = InstructionBaselinePart(instructions=[InstructionPart(content="phase A", on_change="append",
                                                                     name="phase", id=phase)])
    change = InstructionDeltaPart(id=phase, content="phase B")
    reveal = ToolAvailabilityDeltaPart(tools_added=["alpha_diag_2"])
    first, third = messages[0], messages[2]
    assert isinstance(first, ModelRequest) and isinstance(third, ModelRequest)
    messages[0] = replace(first, parts=[*first.parts, baseline])
    messages[2] = replace(third, parts=[*third.parts, reveal, change])
    threshold = estimate(messages)
    folded = ContextCollapse(CompactionSettings(), tmp_path / "log").apply(messages, collapse_budget(messages, threshold))
    assert [e.action for e in folded.events] == ["commit"]
    assert history_state.read(folded.messages).found == {}  # the layer alone folds them away
    view = history_state.kept(messages, folded.messages)
    state, was = history_state.read(view), history_state.read(messages)
    assert (state.found, state.baseline, state.changes) == (was.found, was.baseline, was.changes)
    assert view[0].parts[-3:] == [reveal, baseline, change]  # on the digest's message
    assert view[1:] == folded.messages[1:]
