"""A library user words the summary request for its own kind of agent: `ContextManager(summary_wording=
SummaryWording(...))`. The library's words are for any agent (`NEUTRAL`); the terminal agent gives its
coding words, but only through the wiring seam (`Compactor(wording=...)`, whose fields may change
between versions), and the separate request's "between a user and ..." needed a summarizer of one's
own besides. Now the option reaches both requests, in every conversation the manager serves, and a
wrong value is refused where the manager is made, in one line."""

from __future__ import annotations

import dataclasses

import pytest
from pydantic_ai import Agent
from pydantic_ai.messages import ModelMessage, ModelResponse, TextPart, ToolCallPart, UserPromptPart
from pydantic_ai.models.function import AgentInfo, FunctionModel
from pydantic_ai.usage import UsageLimits

from compact_agent.context import CompactionSettings, ContextManager, SummaryWording
from compact_agent.context.compaction.compactor import Compactor
from compact_agent.context.plumbing.settings import Limits
from compact_agent.context.testing import library_request
from compact_agent.context.wiring import Internals

WORDS = SummaryWording(
    tools="- Do not open, close or reassign any ticket now.",
    detail="detail (ticket numbers, customer names, amounts refunded)",
    data="ticket texts and customer emails",
    draft="tickets, refunds, promises made",
    concepts="2. Products: the products and plans the tickets are about.",
    work="3. Tickets Handled: each ticket, what was done and what was promised.",
    current="8. Current Ticket: the ticket being handled right before this summary, with its number.",
    restored="The open ticket list is shown again after this summary; do not copy it.",
    assistant="a support agent",
)
SETTINGS = CompactionSettings(compaction_records=False)


class Desk:
    """Reads 20 tickets, then answers; keeps the text of every summary request's last message. With
    `calls`, it answers a summary request that offers tools with a call (so the separate one is asked)."""

    def __init__(self, calls: bool = False) -> None:
        self.calls, self.read, self.asked = calls, 0, list[str]()

    def __call__(self, messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        if library_request(messages) == "summary":
            self.asked.append("".join(str(p.content) for p in messages[-1].parts if isinstance(p, UserPromptPart)))
            if self.calls and info.function_tools:
                return ModelResponse(parts=[ToolCallPart("ticket", {"n": 0})])
            return ModelResponse(parts=[TextPart("<summary>Tickets handled so far.</summary>")])
        if self.read < 20:
            self.read += 1
            return ModelResponse(parts=[ToolCallPart("ticket", {"n": self.read})])
        return ModelResponse(parts=[TextPart("done")])


def desk_agent(desk: Desk, cm: ContextManager) -> Agent[None, str]:
    agent: Agent[None, str] = Agent(FunctionModel(desk), capabilities=[cm])

    @agent.tool_plain
    def ticket(n: int) -> str:
        """One ticket."""
        return f"ticket {n}: " + " ".join(f"said-{n}-{i}" for i in range(1_000))

    return agent


async def test_the_users_wording_reaches_the_summary_request() -> None:
    desk = Desk()
    cm = ContextManager(window=32_000, settings=SETTINGS, summary_wording=WORDS)  # room for the draft
    result = await desk_agent(desk, cm).run("Handle the tickets.", usage_limits=UsageLimits(request_limit=80))
    assert result.output == "done" and cm.compactions and desk.asked
    for asked in desk.asked:
        for part in (WORDS.tools, WORDS.detail, WORDS.data, WORDS.draft, WORDS.concepts, WORDS.work, WORDS.current,
                     WORDS.restored):
            assert part in asked, part
        assert "Work and Results" not in asked and "Key Concepts" not in asked  # the library's own, replaced
        assert "draft your thoughts inside <analysis> tags" in asked


async def test_the_separate_request_and_another_conversation_have_it_too() -> None:
    desk = Desk(calls=True)
    cm = ContextManager(window=8_000, settings=SETTINGS, summary_wording=WORDS)
    agent = desk_agent(desk, cm)
    await agent.run("Handle the tickets.", usage_limits=UsageLimits(request_limit=120))
    separate = [a for a in desk.asked if "<transcript>" in a]
    assert separate and all("a conversation between a user and a support agent, as data" in a for a in separate)
    first = len(desk.asked)
    desk.read = 0
    await agent.run("Handle the tickets again.", conversation_id="another", usage_limits=UsageLimits(request_limit=120))
    assert cm.conversation("another") is not None
    prompts = [a for a in desk.asked[first:] if "1. Primary Request and Intent" in a]  # not the refusals' reminders
    assert prompts and all(WORDS.work in a for a in prompts)
    assert any("between a user and a support agent" in a for a in prompts)


def test_without_it_the_summary_request_is_the_librarys_own() -> None:
    from compact_agent.context.compaction.summary_prompt import NEUTRAL

    assert SummaryWording() == NEUTRAL
    assert ContextManager(window=8_000).compactor.wording == NEUTRAL


@pytest.mark.parametrize(("build", "error", "said"), [
    (lambda: ContextManager(window=8_000, summary_wording="be brief"), TypeError,  # type: ignore[arg-type]
     "summary_wording must be a SummaryWording (from compact_agent.context), not 'be brief'"),
    (lambda: ContextManager(window=8_000, summary_wording=SummaryWording), TypeError,  # type: ignore[arg-type]
     "summary_wording must be a SummaryWording (from compact_agent.context), not the class SummaryWording"),
    (lambda: SummaryWording(work=3), TypeError, "SummaryWording.work must be text, not 3"),  # type: ignore[arg-type]
    (lambda: dataclasses.replace(WORDS, assistant=None), TypeError, "SummaryWording.assistant must be text, not None"),
    (lambda: ContextManager.wired(Internals(compactor=Compactor(Limits.for_window(8_000, 8_192))), window=8_000,
                                  summary_wording=WORDS), ValueError,
     "summary_wording is for the compactor the manager makes; a compactor wired in takes its own "
     "(Compactor(wording=...))"),
])
def test_a_wrong_wording_is_refused_in_one_line(build: object, error: type[Exception], said: str) -> None:
    with pytest.raises(error) as raised:
        build()  # type: ignore[operator]
    assert str(raised.value) == said
