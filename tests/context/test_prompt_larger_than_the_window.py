"""What docs/library.md says of one prompt larger than the window: with records (the default) the
compacted history keeps its beginning and its end, so the model reads the question a long paste ends
with. Without records the summary request is cut alike, so no request reaches a strict server over
its window. (A summary request the provider still refuses ends the run with `WindowTooSmallError`:
test_http_errors_in_words.py.)"""

from __future__ import annotations

from pydantic_ai import Agent
from pydantic_ai.messages import ModelMessage, ModelResponse, TextPart
from pydantic_ai.models.function import AgentInfo, FunctionModel
from pydantic_ai.models.openai import OpenAIChatModel
from pydantic_ai.providers.openai import OpenAIProvider

from compact_agent.context import CompactionEvent, CompactionSettings, ContextManager, Event
from compact_agent.context.compaction import summary
from compact_agent.context.testing import reply_to_library_request
from tests.fakes import ChatRequest, FakeOpenAIServer, Reply

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



def summary_or_ok(req: ChatRequest) -> Reply:
    asked = "<summary>" in req.last_user_text()
    return Reply.text("<summary>The user pasted words and asked how many.</summary>" if asked else "ok")


async def test_without_records_the_summary_request_keeps_the_beginning_and_the_question_within_the_window() -> None:
    with FakeOpenAIServer(summary_or_ok, window=16_000) as server:
        cm = ContextManager(window=16_000, max_output=2_000, settings=CompactionSettings(compaction_records=False))
        model = OpenAIChatModel("fake-model", provider=OpenAIProvider(base_url=server.base_url, api_key="k"))
        agent: Agent[None, str] = Agent(model, capabilities=[cm])
        async with agent:
            assert (await agent.run(PROMPT)).output == "ok"
    assert server.rejected == []  # the fake refuses a request over its window
    [asked] = [r for r in server.requests if "<summary>" in r.last_user_text()]
    sent = asked.all_text()
    assert "BEGIN word" in sent and "QUESTION: how many words?" in sent and summary.MIDDLE_MARK in sent
    assert "QUESTION: how many words?" in server.requests[-1].all_text()
