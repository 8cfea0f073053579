"""A document attached to the newest message that alone takes more than the window is refused, before any compaction.

No compaction can make room for it: it is the message the model is asked about. It was compacted
around: after three turns, a 22,000-token text file sent in a 16,000-token window had the history
summarised (a summary request paid for, the earlier turns rewritten into it), the request still
24,161 tokens, then folded down to 130 with the document left out, and the model answered without
it; the next turn compacted once more. Now the run ends at once with `WindowTooSmallError`, one line
naming the document and both figures, as a request the window cannot hold is refused: nothing sent,
nothing summarised, the history as it was. A document that fits the window alone is compacted
around as before (test_documents_count_by_size.py).
"""

from __future__ import annotations

import re

import pytest
from pydantic_ai import Agent
from pydantic_ai.messages import BinaryContent, ModelMessage, ModelResponse, TextPart
from pydantic_ai.models.function import AgentInfo, FunctionModel
from pydantic_ai.usage import RequestUsage

from compact_agent.context import CompactionEvent, ContextManager, Event, WindowTooSmallError
from compact_agent.context.testing import library_request, reply_to_library_request

WINDOW = 16_000


def report(sentences: int) -> BinaryContent:
    return BinaryContent(("The quarterly report. " * sentences).encode(), media_type="text/plain",
                         identifier="report.txt")


async def test_a_document_larger_than_the_window_is_refused_before_any_compaction() -> None:
    asked: list[str] = []

    def provider(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        asked.append(library_request(messages) or "main")
        usage = RequestUsage(input_tokens=sum(len(str(getattr(p, "content", ""))) for m in messages
                                              for p in m.parts) // 4, output_tokens=5)
        return reply_to_library_request(messages, "summary", usage=usage) or ModelResponse(
            parts=[TextPart("answer")], usage=usage)

    events: list[Event] = []
    cm = ContextManager(window=WINDOW, event_handler=events.append)
    agent = Agent(FunctionModel(provider), capabilities=[cm])
    history: list[ModelMessage] = []
    for turn in range(3):
        history = (await agent.run(f"turn {turn}: " + "chat " * 1_500, message_history=history)).all_messages()
    asked.clear()
    events.clear()

    with pytest.raises(WindowTooSmallError) as caught:
        await agent.run(["Summarise this document.", report(4_000)], message_history=history)  # about 22,000 tokens
    said = str(caught.value)
    found = re.fullmatch(
        r"the document text/plain 'report\.txt' \(88,000 bytes\), attached to the newest message, takes about "
        r"(\d\d,\d{3}) tokens alone, but the context window is 16,000 less the 320 kept free for the estimate's "
        r"error \(15,680\): no compaction can make room for it: send a smaller document, or a part of it, or pass "
        r"a larger window= to ContextManager", said)
    assert found, said
    assert 21_000 < int(found[1].replace(",", "")) <= 22_000  # its 88,000 characters as the provider's reports count
    assert asked == []  # nothing sent: no summary request, no request of the agent's
    assert not [e for e in events if isinstance(e, CompactionEvent)]
    [refused] = [e for e in events if e.layer == "window" and e.action == "refused"]
    assert refused.detail["document"] == "text/plain 'report.txt', 88,000 bytes"
    # The conversation goes on from the history as it was: a later prompt is answered, nothing compacted.
    assert (await agent.run("Hello again.", message_history=history)).output == "answer"
    assert asked == ["main"]


async def test_the_instructions_count_with_the_document_and_the_line_names_them() -> None:
    """A document that fits the window alone, not with the instructions every request carries."""
    asked: list[str] = []
    model = FunctionModel(lambda messages, info: asked.append("main") or ModelResponse(parts=[TextPart("answer")]))
    agent = Agent(model, instructions="Rules: " + "be careful. " * 400, capabilities=[ContextManager(window=WINDOW)])
    with pytest.raises(WindowTooSmallError) as caught:
        await agent.run(["Summarise this document.", report(2_800)])  # 61,600 bytes: about 15,400 tokens
    assert re.search(r"takes about 15,400 tokens alone, and the instructions and tool definitions 1,\d{3} more, "
                     r"but the context window is 16,000 ", str(caught.value)), str(caught.value)
    assert asked == []


async def test_a_pdf_is_named_by_its_pages_and_a_document_without_identifier_by_its_type() -> None:
    """The line said a PDF's bytes (342 of them for five pages counted at 4,600 tokens each: the
    figures did not go together), and a document sent without an identifier by the hash pydantic-ai
    makes up for it ('4912e8'), a name the user never gave."""
    from tests.context.test_documents_count_by_size import pdf

    agent = Agent(FunctionModel(lambda messages, info: ModelResponse(parts=[TextPart("answer")])),
                  capabilities=[ContextManager(window=WINDOW)])
    with pytest.raises(WindowTooSmallError, match=r"^the document application/pdf 'deck\.pdf' \(5 pages\), "
                                                  r"attached to the newest message, takes about 23,\d{3} tokens alone"):
        await agent.run(["Summarise this.", BinaryContent(pdf(5), media_type="application/pdf", identifier="deck.pdf")])
    with pytest.raises(WindowTooSmallError, match=r"^the document text/plain \(88,000 bytes\), attached"):
        await agent.run(["Summarise this.", BinaryContent(("The quarterly report. " * 4_000).encode(),
                                                           media_type="text/plain")])
