"""What is taken from a summary reply. The prompt asks for an `<analysis>` draft, then a `<summary>`
block; a reply without the block has its draft struck and the rest taken, and a reply with nothing
left (a whole draft alone) is a summary that failed: counted by the circuit breaker in a run, and for
`compact_now` a `CompactionError` (a compaction that did not happen), never `ValueError`, which the
library raises for an argument of the wrong kind. A reply cut off keeps what it holds, its draft
where the cut came before the summary (test_summary_in_a_tiny_window.py)."""

from __future__ import annotations

import pytest
from pydantic_ai.messages import ModelMessage, ModelRequest, ModelResponse, TextPart, UserPromptPart
from pydantic_ai.models.function import AgentInfo, FunctionModel

from compact_agent.context import CompactionError, ContextManager, InMemoryStore
from compact_agent.context.testing import library_request


def _history() -> list[ModelMessage]:
    return [m for i in range(12) for m in (
        ModelRequest(parts=[UserPromptPart(f"step {i}: " + "word " * 1_500)]),
        ModelResponse(parts=[TextPart(f"done {i}")]))]


def _model(reply: str) -> FunctionModel:
    def answer(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        assert library_request(messages) == "summary"
        return ModelResponse(parts=[TextPart(reply)])
    return FunctionModel(answer)


async def test_a_reply_without_the_summary_block_loses_its_draft() -> None:
    reply = "<analysis>Walked through the steps.</analysis>\nSix steps done, each answered."
    cm = ContextManager(window=32_000)
    await cm.compact_now(_history(), model=_model(reply))
    assert cm.compactions[-1].summary == "Six steps done, each answered."


@pytest.mark.parametrize("reply", ["<analysis>Walked through the steps.</analysis>", "<analysis>",
                                   "<analysis>a</analysis><summary>  </summary>", ""])
async def test_a_reply_with_nothing_after_its_draft_is_a_compaction_that_did_not_happen(reply: str) -> None:
    assert str(await not_compacted(reply)) == "the model returned an empty summary"


async def not_compacted(reply: str) -> CompactionError:
    """`compact_now` of `_history()` in a stored conversation, the summary request answered with
    `reply`: the error it raised, once nothing was compacted, archived or rewritten."""
    store = InMemoryStore()
    cm = ContextManager(window=32_000, store=store)
    cm.resume([])
    history = _history()
    with pytest.raises(CompactionError) as caught:
        await cm.compact_now(history, model=_model(reply))
    assert not cm.compactions and store.archives == [] and store.messages == history
    return caught.value


async def test_in_a_run_a_draft_alone_is_a_failed_compaction_the_breaker_counts() -> None:
    from compact_agent.context import CompactionEvent

    from .pages_agent import reading, run_pages

    run = await run_pages(reading("<analysis>Pages were read one by one; nothing else yet.</analysis>"))
    result, cm, events = run.result, run.cm, run.events
    failed = [e for e in events if isinstance(e, CompactionEvent) and e.action == "failed"]
    assert result.output == "done" and not cm.compactions  # the run went on without them
    assert [e.detail["failures"] for e in failed] == [1, 2, 3] and cm.breaker_open
    assert all(e.detail["error"] == "the model returned an empty summary" for e in failed)


async def test_a_summary_the_model_stopped_at_its_cap_says_it_is_cut_off() -> None:
    """A reply that ended at the output cap (finish reason "length") was taken as a whole summary:
    read as whole, it passed for the whole conversation. It is kept, and says where it stops; so is
    a draft cut off before its summary began, where a summary cut off to nothing is none."""
    from compact_agent.context.compaction.summary_prompt import CUT_OFF, EmptySummary, extract_summary
    from tests.fakes.openai_server import ChatRequest, Reply

    from .pages_agent import is_summary_request, reading, run_pages

    cut = "<analysis>Read pages.</analysis><summary>Pages 1 to 9 read; the user asked for"
    pages = reading("")

    def responder(req: ChatRequest) -> Reply:
        return Reply.text(cut, finish_reason="length") if is_summary_request(req) else pages(req)

    run = await run_pages(responder)
    assert run.result.output == "done" and run.cm.compactions
    assert run.cm.compactions[-1].summary == "Pages 1 to 9 read; the user asked for" + CUT_OFF
    assert extract_summary("<analysis>Read pa" + CUT_OFF) == "Read pa" + CUT_OFF
    assert extract_summary("<analysis>Read pages.</analysis><summary>" + CUT_OFF) == "Read pages." + CUT_OFF
    # A summary without its tags after the draft, cut off: the summary, not the draft.
    untagged = "1. Primary Request and Intent: fix the build in x.c\n2. Key Technical Concepts: make"
    assert extract_summary("<analysis>I walk through it.</analysis>\n" + untagged + CUT_OFF) == untagged + CUT_OFF
    for nothing in ("<analysis>" + CUT_OFF, "<summary>" + CUT_OFF):
        with pytest.raises(EmptySummary):
            extract_summary(nothing)


@pytest.mark.parametrize("heading", ["## Summary\n", "Summary:\n", "1. Primary Request and Intent:", "**Summary**"])
def test_a_draft_cut_off_after_a_heading_alone_is_kept(heading: str) -> None:
    """A reply cut off at its cap after a whole draft and only the heading of the summary it began
    was taken as that heading: the compaction went ahead with a summary of one line, and the draft
    (the walk through the conversation) was thrown away. The draft is taken, as where the cut came
    right after it; a summary begun after the heading is still the summary."""
    from compact_agent.context.compaction.summary_prompt import CUT_OFF, extract_summary

    draft = "The user asked to fix the build in x.c; I found the missing include, edited x.c and ran make."
    assert extract_summary(f"<analysis>{draft}</analysis>\n\n{heading}{CUT_OFF}") == draft + CUT_OFF
    begun = f"{heading}\nThe build of x.c is fixed".strip()
    assert extract_summary(f"<analysis>{draft}</analysis>\n\n{begun}{CUT_OFF}") == begun + CUT_OFF
