"""A conversation whose tool set changed is still summarized, and its notes still written.

pydantic-ai (2.68) records a tool that joins a run after its first request (a toolset whose tools
change, an MCP server's list changed, a tool search) as a `ToolAvailabilityDeltaPart` in the history,
and an agent's request goes through `Model.prepare_messages`, which says so to the model ("The
following tool(s) are now available: ..."). The summary and notes requests, sent with
`pydantic_ai.direct.model_request`, carried the part as it was, and the model refused each one
("`ToolAvailabilityDeltaPart` cannot be rendered by this model"): every compaction failed, three in a
row paused them, and the notes were never written. They are now prepared as the agent's are: the
summary request says what the main request said, so it shares its prefix too.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from pydantic_ai.messages import (
    ModelMessage,
    ModelRequest,
    ModelResponse,
    TextPart,
    ToolCallPart,
    ToolReturnPart,
    UserPromptPart,
)
from pydantic_ai.models.function import AgentInfo, FunctionModel
from pydantic_ai.toolsets import FunctionToolset

from compact_agent.context import CompactionSettings, ContextManager, NotesEvent
from tests.fakes.openai_server import ChatRequest, Reply, message_text

from .pages_agent import is_notes_request, is_summary_request, noting, page_text, reading, run_pages

messages_module = pytest.importorskip("pydantic_ai.messages")
Delta: Any = getattr(messages_module, "ToolAvailabilityDeltaPart", None)
pytestmark = pytest.mark.skipif(Delta is None, reason="pydantic-ai before 2.68 has no tool availability delta")

ANNOUNCED = "The following tool(s) are now available: `chapter`"
NOTES = ("<notes># Task and intent\nRead the pages.\n# Decisions\nOne page a call.\n# Current state\nReading.\n"
         "# Next steps\nRead on.</notes>")


def history() -> list[ModelMessage]:
    """A call whose tool made `chapter` available, recorded as pydantic-ai records it, then a long answer."""
    return [ModelRequest(parts=[UserPromptPart("Open the book. " + "a " * 4_000)]),
            ModelResponse(parts=[ToolCallPart("open_book", {}, tool_call_id="c1")]),
            ModelRequest(parts=[ToolReturnPart("open_book", "opened " * 3_000, tool_call_id="c1"),
                                Delta(tools_added=["chapter"])]),
            ModelResponse(parts=[TextPart("The book is open. " * 300)]),
            ModelRequest(parts=[UserPromptPart("Now read on.")])]


async def test_compact_now_of_a_history_with_a_changed_tool_set() -> None:
    """FunctionModel: the summary request it is given is prepared (no unrendered part: before any run
    no request offered `chapter`, so pydantic-ai leaves the change unsaid), and the compaction is made."""
    seen: list[list[ModelMessage]] = []

    def summarize(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        seen.append(messages)
        return ModelResponse(parts=[TextPart("<summary>The book was opened.</summary>")])

    cm = ContextManager(window=8_000, summary_model=FunctionModel(summarize),
                        settings=CompactionSettings(compaction_records=False))
    compacted = await cm.compact_now(history())
    assert len(seen) == 1  # the shared request, not the plain-text one after it failed
    parts = [p for m in seen[0] if isinstance(m, ModelRequest) for p in m.parts]
    assert not any(isinstance(p, Delta) for p in parts)
    assert not any("chapter" in str(getattr(p, "content", "")) for p in parts)
    assert "The book was opened." in str(compacted[0].parts[0].content)  # type: ignore[union-attr]


def opening(then: Callable[[ChatRequest], Reply]) -> Callable[[ChatRequest], Reply]:
    """The server's answers: first a call of `open_book` (whose tool adds `chapter`), then `then`'s."""
    def responder(req: ChatRequest) -> Reply:
        if not any(m.get("role") == "tool" for m in req.messages) and not is_summary_request(req):
            return Reply.tools([("open_book", {})])
        return then(req)
    return responder


def book() -> FunctionToolset[Any]:
    toolset: FunctionToolset[Any] = FunctionToolset()

    def chapter(n: int) -> str:
        """Read a chapter."""
        return f"chapter {n}"

    @toolset.tool_plain
    def open_book() -> str:
        """Open the book: its chapters can be read from then on."""
        toolset.add_function(chapter)
        return "opened"
    return toolset


def announcements(req: ChatRequest) -> list[dict[str, Any]]:
    return [m for m in req.messages if ANNOUNCED in message_text(m)]


async def test_an_agent_whose_tools_changed_is_summarized_over_http() -> None:
    """An agent reads 25 pages in an 8K window after a tool of its own made another available: every
    summary request is sent and answered, and says the tools changed as the main request did."""
    run = await run_pages(opening(reading("<summary>Pages read so far.</summary>")), toolsets=[book()])
    failed = [e.detail for e in run.events if e.action == "failed"]
    assert failed == []  # was: "`ToolAvailabilityDeltaPart` cannot be rendered by this model", each time
    assert run.result.output == "done"
    summaries = run.summaries()
    compactions = [e for e in run.events if e.layer == "compact" and e.action == "full"]
    assert summaries and len(compactions) == len(summaries)
    first = summaries[0]
    main = next(r for r in reversed(run.server.requests[:first.index]) if not is_summary_request(r))
    assert announcements(first) == announcements(main) != []  # the same prefix as the main request
    assert "chapter" in first.tool_names and run.server.rejected == []


async def test_the_notes_of_an_agent_whose_tools_changed_are_written_over_http() -> None:
    """The same agent with session notes: every update is written, none fails."""
    settings = CompactionSettings(memory_enabled=True, memory_update_tokens=1, memory_update_tool_calls=3,
                                  memory_start_fraction=0.0, compaction_records=False)
    answer = noting(NOTES, "<summary>Pages read so far.</summary>")
    run = await run_pages(opening(reading(answer, last=12)), settings=settings, toolsets=[book()],
                          text=lambda n: page_text(n, 120, "w"), request_limit=80)
    notes = [e for e in run.events if isinstance(e, NotesEvent) and e.action in ("update", "failed")]
    assert notes and [e.action for e in notes] == ["update"] * len(notes), [e.detail for e in notes]
    asked = [r for r in run.server.requests if is_notes_request(r)]
    assert asked and all(announcements(r) for r in asked)
    assert "Read the pages." in str(run.cm.memory.notes if run.cm.memory else "")
