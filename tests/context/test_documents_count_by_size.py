"""A document attached as `BinaryContent` counts by its size, not as one image.

Every `BinaryContent` was counted at the image's flat 1,600 tokens, whatever it held: a 22,000-token
text file went out over a 16,000-token window with no event, and the provider's refusal was read as
instructions and tools of 15,566 tokens (an agent that had none); a 20,000-token one on a second turn
was "compacted" to 7,072 tokens and sent at 20,513. A text document now counts as its text, a PDF by
its pages, and a compaction or a fold that leaves a document out says so, naming it.
"""

from __future__ import annotations

import zlib

import pytest
from pydantic_ai import Agent
from pydantic_ai.exceptions import ModelHTTPError
from pydantic_ai.messages import (
    BinaryContent,
    ModelMessage,
    ModelRequest,
    ModelResponse,
    TextPart,
    ToolCallPart,
    UserPromptPart,
)
from pydantic_ai.models.function import AgentInfo, FunctionModel
from pydantic_ai.usage import RequestUsage

from compact_agent.context import CompactionEvent, ContextManager, WindowTooSmallError
from compact_agent.context.decisions.fit import CARRIED, DOCUMENTS_LEFT_OUT, shrink_to_fit
from compact_agent.context.plumbing import tokens
from compact_agent.context.plumbing.events import Event
from compact_agent.context.plumbing.media_size import IMAGE_TOKENS, PDF_PAGE_TOKENS, pdf_pages
from compact_agent.context.testing import library_request, reply_to_library_request

WINDOW = 16_000
PNG = b"\x89PNG\r\n\x1a\n" + b"\0" * 200_000


def report(sentences: int, name: str = "report.txt") -> BinaryContent:
    return BinaryContent(("The quarterly report. " * sentences).encode(), media_type="text/plain", identifier=name)


def pdf(pages: int, packed: int = 0) -> bytes:
    """A PDF of `pages` page objects, and `packed` more kept in a compressed object stream."""
    body = b"%PDF-1.7\n1 0 obj << /Type /Catalog /Pages 2 0 R >> endobj\n"
    body += b"2 0 obj << /Type /Pages /Count %d >> endobj\n" % (pages + packed)
    body += b"".join(b"%d 0 obj << /Type /Page /Parent 2 0 R >> endobj\n" % (3 + k) for k in range(pages))
    if packed:
        stream = zlib.compress(b" ".join(b"<< /Type /Page /Parent 2 0 R >>" for _ in range(packed)))
        body += b"90 0 obj << /Type /ObjStm /N %d /Filter /FlateDecode /Length %d >>\nstream\n%s\nendstream\nendobj\n" % (
            packed, len(stream), stream)
    return body + b"%%EOF\n"


def test_a_text_document_counts_as_its_text_and_an_image_as_before() -> None:
    doc = report(4_000)  # 88,000 characters
    assert tokens.message_tokens(ModelRequest(parts=[UserPromptPart(["Summarise this document.", doc])])) \
        == tokens.PER_MESSAGE_OVERHEAD + tokens.text_tokens("Summarise this document.") + 22_000
    image = BinaryContent(PNG, media_type="image/png")
    assert tokens.part_tokens(UserPromptPart(["look", image])) == 1 + IMAGE_TOKENS
    assert tokens.media_tokens([ModelRequest(parts=[UserPromptPart(["look", image, doc])])]) == IMAGE_TOKENS


def test_a_pdf_counts_by_its_pages_and_another_document_by_its_bytes() -> None:
    assert pdf_pages(pdf(3)) == 3
    assert pdf_pages(pdf(2, packed=5)) == 7  # pages kept in a compressed object stream are found too
    assert pdf_pages(b"not a pdf") is None
    assert tokens.part_tokens(UserPromptPart([BinaryContent(pdf(3), media_type="application/pdf")])) \
        == 3 * PDF_PAGE_TOKENS
    sheet = BinaryContent(b"PK\x03\x04" + b"x" * 40_000, media_type="application/vnd.ms-excel")
    assert tokens.part_tokens(UserPromptPart([sheet])) == tokens.text_tokens("x" * 40_004)
    found_none = BinaryContent(b"%PDF-1.7\n" + b"\0" * 8_000, media_type="application/pdf")
    assert tokens.part_tokens(UserPromptPart([found_none])) == tokens.text_tokens("x" * 8_009)


class StandIn:
    """A model that counts a document by its bytes and refuses a prompt over its window as OpenAI does."""

    def __init__(self) -> None:
        self.sent: list[tuple[int, list[ModelMessage]]] = []

    def __call__(self, messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        contents = [getattr(p, "content", "") for m in messages for p in m.parts]
        items = [x for c in contents for x in (c if isinstance(c, list) else [c])]
        size = sum(len(x.data) // 4 if isinstance(x, BinaryContent) else len(str(x)) // 4 for x in items)
        self.sent.append((size, list(messages)))
        usage = RequestUsage(input_tokens=size, output_tokens=5)
        if size > WINDOW:
            raise ModelHTTPError(400, "fn", {"error": {"code": "context_length_exceeded", "message":
                f"This model's maximum context length is {WINDOW} tokens. However, your messages resulted in {size} tokens."}})
        if (reply := reply_to_library_request(messages, "summary", usage=usage)) is not None:
            return reply
        if library_request(messages) is None and len(self.sent) % 3 == 1:
            return ModelResponse(parts=[ToolCallPart("look", {}, tool_call_id=f"l{len(self.sent)}")], usage=usage)
        return ModelResponse(parts=[TextPart("answer")], usage=usage)

    def texts(self, n: int = -1) -> str:
        return "\n".join(str(p.content) for m in self.sent[n][1] for p in m.parts if isinstance(p, UserPromptPart))


async def test_a_document_larger_than_the_window_is_never_sent_and_the_run_says_so() -> None:
    """Refused before anything is sent (test_document_over_the_window_refused.py); counted as one image, it was sent."""
    model = StandIn()
    agent = Agent(FunctionModel(model), capabilities=[ContextManager(window=WINDOW)])
    with pytest.raises(WindowTooSmallError, match=r"^the document text/plain 'report\.txt' \(88,000 bytes\), "):
        await agent.run(["Summarise this document.", report(4_000)])  # about 22,000 tokens; no instructions
    assert model.sent == []


async def test_documents_on_a_later_turn_are_counted_and_each_event_tells_what_was_sent() -> None:
    """Two documents that each fit the window, and together do not: left out, and the model told."""
    model, events = StandIn(), list[object]()
    agent = Agent(FunctionModel(model), capabilities=[ContextManager(window=WINDOW, event_handler=events.append)])
    first = await agent.run("Hello, I will send you a report.")
    result = await agent.run(["Summarise these documents.", report(1_850), report(1_850, "annex.txt")],
                             message_history=first.all_messages())
    assert result.output == "answer"
    assert max(size for size, _ in model.sent) <= WINDOW
    assert all(e.tokens_after <= WINDOW for e in events if isinstance(e, CompactionEvent | Event))
    assert "2 documents, left out of this request to fit the window" in model.texts()
    assert "text/plain 'report.txt', 40,700 bytes; text/plain 'annex.txt', 40,700 bytes" in model.texts()


async def test_a_compaction_that_leaves_a_document_out_says_so() -> None:
    model = StandIn()
    agent = Agent(FunctionModel(model), capabilities=[ContextManager(window=WINDOW)])

    @agent.tool_plain
    def look() -> str:
        return "seen " * 2_400

    history: list[ModelMessage] = []
    for turn in range(8):
        prompt: str | list[str | BinaryContent] = ["read this", report(1_600)] if turn == 2 else f"turn {turn}"
        history = (await agent.run(prompt, message_history=history)).all_messages()
    assert max(size for size, _ in model.sent) <= WINDOW
    told = [n for n in range(len(model.sent)) if "a document left out: text/plain 'report.txt'" in model.texts(n)]
    assert told, "no request after the compaction names the document it left out"
    assert not any("[binary]" in model.texts(n) for n in range(len(model.sent)))


def test_rounds_the_last_resort_leaves_out_name_the_documents_they_held() -> None:
    """Rounds left out of a request to fit carry what the user typed in them; the documents attached
    there went with them unsaid, and are named now."""
    cm = ContextManager(window=8_000)
    cm.layers = []
    cm.emit = lambda event: None  # type: ignore[method-assign]
    view: list[ModelMessage] = [
        ModelRequest(parts=[UserPromptPart("Review the quarter.")]),
        ModelResponse(parts=[TextPart("Send me the report.")]),
        ModelRequest(parts=[UserPromptPart(["read this", report(1_600)])]),  # about 8,800 tokens
        ModelResponse(parts=[TextPart("Read it.")]),
        ModelRequest(parts=[UserPromptPart("And now the totals?")]),
    ]
    shrunk, after = shrink_to_fit(cm, list(view), cm.measure(view))
    assert after <= 8_000 - 8_000 // 50
    first = shrunk[0]
    assert isinstance(first, ModelRequest)
    texts = [p.content for p in first.parts if isinstance(p, UserPromptPart)]
    assert texts[0] == "Review the quarter." and texts[1] == CARRIED + "- read this"
    assert texts[2] == DOCUMENTS_LEFT_OUT + "text/plain 'report.txt', 35,200 bytes]"
