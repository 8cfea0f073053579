"""What docs/library.md says of one prompt larger than the window: with records (the default) the
compacted history keeps its beginning and its end, so the model reads the question a long paste ends
with. (Without records, the summary
request a provider refuses as too long ends the run with `WindowTooSmallError`:
test_http_errors_in_words.py.)"""

from __future__ import annotations

from pydantic_ai import Agent
from pydantic_ai.messages import ModelMessage, ModelResponse, TextPart
from pydantic_ai.models.function import AgentInfo, FunctionModel

from compact_agent.context import CompactionEvent, ContextManager, Event
from compact_agent.context.compaction import summary
from compact_agent.context.testing import reply_to_library_request

PROMPT = "BEGIN " + "word " * 60_000 + "QUESTION: how many words?"
SENT: list[str] = []


def model(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
    reply = reply_to_library_request(messages)
    if reply is None:
        SENT.append("".join(str(getattr(p, "content", "")) for m in messages for p in m.parts))
    return reply or ModelResponse(parts=[TextPart("ok")])


def test_with_records_the_model_reads_the_prompts_beginning_and_its_question_at_the_end() -> None:
    SENT.clear()
    events: list[Event] = []
    cm = ContextManager(window=16_000, event_handler=events.append)
    assert Agent(FunctionModel(model), capabilities=[cm]).run_sync(PROMPT).output == "ok"
    assert "BEGIN word" in SENT[-1] and "QUESTION: how many words?" in SENT[-1] and summary.MIDDLE_MARK in SENT[-1]
    assert len(SENT[-1]) < 16_000 // 8 * 4 * 2  # within the user messages' budget, an eighth of the window
    [compaction] = [e for e in events if isinstance(e, CompactionEvent)]
    assert compaction.tokens_before > 60_000

