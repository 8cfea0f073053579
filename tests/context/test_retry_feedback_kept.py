"""Why an answer was refused stays said after a compaction.

pydantic-ai (from 2.62 on) stores its feedback on an answer it could not use (an output validator's
`ModelRetry`, output that failed validation) as a `RetryFeedbackPart`, where older histories hold a
tool-less `RetryPromptPart`. The digest behind compaction records and collapse digests, the plain-text
transcript of the summary fallback and the folded note knew only the older part: after a record
compaction the model no longer knew why its earlier answer had been rejected.
"""

from __future__ import annotations

import warnings

from pydantic_ai import Agent, ModelRetry
from pydantic_ai.messages import (
    ModelMessage,
    ModelRequest,
    ModelResponse,
    RetryFeedbackPart,
    RetryInfo,
    RetryPromptPart,
    TextPart,
    ToolCallPart,
    UserPromptPart,
)
from pydantic_ai.models.function import AgentInfo, FunctionModel
from pydantic_ai.usage import RequestUsage

from compact_agent.context import CompactionEvent, ContextManager, Event
from compact_agent.context.compaction.summarizer import transcript_as_data
from compact_agent.context.decisions.fit import _steps
from compact_agent.context.layers.digest import default_digest
from compact_agent.context.testing import reply_to_library_request

SAID = "the answer must start with ANSWER:"


def history(feedback: RetryFeedbackPart | RetryPromptPart) -> list[ModelMessage]:
    return [ModelRequest(parts=[UserPromptPart("Answer.")]), ModelResponse(parts=[TextPart("prose")]),
            ModelRequest(parts=[feedback]), ModelResponse(parts=[TextPart("ANSWER: ok")])]


def feedback_part() -> RetryFeedbackPart:
    return RetryFeedbackPart(content=SAID, retry=RetryInfo(cause="model_retry"))


def test_a_digest_says_the_feedback_of_either_part() -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # RetryPromptPart is deprecated in newer pydantic-ai
        older = RetryPromptPart(content=SAID)
    for part in (feedback_part(), older):
        assert default_digest(history(part), framed=False).splitlines() == [
            "- User: Answer.", "- Assistant: prose", f"- Retry feedback: {SAID}", "- Assistant: ANSWER: ok"]


def test_validation_errors_are_said_in_a_digest() -> None:
    errors = RetryFeedbackPart(content=[{"type": "missing", "loc": ("city",), "msg": "Field required", "input": {}}],
                               retry=RetryInfo(cause="validation_error"))
    assert "- Retry feedback: " in default_digest(history(errors), framed=False)
    assert "Field required" in default_digest(history(errors), framed=False)


def test_the_plain_text_transcript_says_the_feedback_as_the_programs() -> None:
    assert transcript_as_data(history(feedback_part())).splitlines() == [
        "USER: Answer.", "ASSISTANT: prose", f"PROGRAM: Retry feedback: {SAID}", "ASSISTANT: ANSWER: ok"]


def test_the_folded_note_says_the_reply_was_refused() -> None:
    lines = _steps(ModelRequest(parts=[feedback_part()]), 200, {})
    assert len(lines) == 1 and lines[0].startswith("the reply was refused: ") and SAID in lines[0]


async def test_a_record_compaction_keeps_why_the_answer_was_refused() -> None:
    calls = {"n": 0}

    def model(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        sent = sum(len(str(getattr(p, "content", ""))) for m in messages for p in m.parts)
        usage = RequestUsage(input_tokens=sent // 4 + 200, output_tokens=20)
        if (reply := reply_to_library_request(messages, usage=usage)) is not None:
            return reply
        calls["n"] += 1
        if calls["n"] == 1:
            return ModelResponse(parts=[TextPart("plain prose")], usage=usage)
        if calls["n"] <= 10:
            return ModelResponse(parts=[ToolCallPart("read", {"page": calls["n"]})], usage=usage)
        return ModelResponse(parts=[TextPart("ANSWER: done")], usage=usage)

    events: list[Event] = []
    agent: Agent[None, str] = Agent(FunctionModel(model), retries=3,
                                    capabilities=[ContextManager(window=6_000, event_handler=events.append)])

    @agent.tool_plain
    def read(page: int) -> str:
        """One page."""
        return f"page {page}: " + " ".join(f"line-{page}-{i}" for i in range(250))

    @agent.output_validator
    async def check(out: str) -> str:
        if not out.startswith("ANSWER:"):
            raise ModelRetry(SAID)
        return out

    result = await agent.run("Read the pages, then answer.")
    assert any(isinstance(e, CompactionEvent) and e.strategy == "record" for e in events)
    assert not any(isinstance(p, RetryFeedbackPart) for m in result.all_messages() for p in m.parts)
    assert f"- Retry feedback: {SAID}" in "\n".join(
        str(getattr(p, "content", "")) for m in result.all_messages() for p in m.parts)
