"""A summary request in a tiny window, over HTTP to the strict fake OpenAI server.

In 2K-3K windows the summary request's output cap (`max_tokens`, what the window leaves) is 80-400
tokens, and the prompt asked for an `<analysis>` draft before the `<summary>`: a model that drafted
as asked ran out before the summary began, and the reply, a draft cut off, was no summary at all
(`EmptySummary`): the compaction failed and the window stayed full. Now a request whose cap is under
`DRAFT_MIN_CAP` asks for the summary alone, and a reply cut off keeps what it holds.

The server's model here writes as asked: a draft first where the prompt asks for one, then the
summary, cut at the request's `max_tokens` (the fake counts 4 characters a token) with the finish
reason "length", as a real model stops.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from pydantic_ai.messages import (
    ModelMessage,
    ModelRequest,
    ModelResponse,
    TextPart,
    ToolCallPart,
    UserPromptPart,
)
from pydantic_ai.models.function import AgentInfo, FunctionModel
from pydantic_ai.models.openai import OpenAIChatModel
from pydantic_ai.providers.openai import OpenAIProvider

from compact_agent.context import CompactionSettings, ContextManager, SharedPrefixSummarizer
from compact_agent.context.compaction.summary_prompt import (
    CUT_OFF,
    DRAFT_MIN_CAP,
    NO_DRAFT_BLOCKS,
    compact_prompt,
)
from tests.fakes.openai_server import ChatRequest, FakeOpenAIServer, Reply

SUMMARY = "<summary>Steps 0-5 done: the user wants the words counted.</summary>"
DRAFT = "<analysis>" + "Walking through the steps in order. " * 40 + "</analysis>\n"  # ~360 tokens


def _history(window: int) -> list[ModelMessage]:
    """Six steps that fill seven tenths of `window`."""
    words = window * 7 // 10 // 6 * 4 // 5
    return [m for i in range(6) for m in (ModelRequest(parts=[UserPromptPart(f"step {i}: " + "word " * words)]),
                                          ModelResponse(parts=[TextPart(f"done {i}")]))]


async def _compact(window: int, drafts_anyway: bool = False) -> tuple[str, list[ChatRequest]]:
    """The summary a manual compaction keeps in `window`, and the summary requests the server got."""
    asked: list[ChatRequest] = []

    def model(req: ChatRequest) -> Reply:
        asked.append(req)
        cap = req.body.get("max_completion_tokens") or req.body.get("max_tokens")
        drafts = drafts_anyway or "draft your thoughts inside <analysis> tags" in req.last_user_text()
        reply = (DRAFT if drafts else "") + SUMMARY
        return Reply.text(reply[:cap * 4], finish_reason="length") if len(reply) > cap * 4 else Reply.text(reply)

    with FakeOpenAIServer(model, window=window, model="small") as server:
        cm = ContextManager(window=window, settings=CompactionSettings(compaction_records=False))
        await cm.compact_now(_history(window), model=OpenAIChatModel(
            "small", provider=OpenAIProvider(base_url=server.base_url, api_key="k")))
        assert not server.rejected
    return cm.compactions[-1].summary, asked


async def test_a_summary_request_with_a_small_cap_asks_for_no_draft() -> None:
    for window in (2_048, 3_000):
        summary, [req] = await _compact(window)
        cap = req.body.get("max_completion_tokens") or req.body.get("max_tokens")
        assert 50 < cap < 400
        prompt = req.last_user_text()
        assert "draft your thoughts" not in prompt and "Write no draft and no <analysis> block" in prompt
        said = int(re.search(r"room for about ([\d,]+) tokens", prompt)[1].replace(",", ""))  # type: ignore[index]
        assert cap - 200 < said <= cap  # counted before the draft's words were taken out
        assert prompt.endswith("Respond with plain text only: a <summary> block alone, no <analysis> draft.")
        assert summary == "Steps 0-5 done: the user wants the words counted."  # the draft had taken the cap
    # A cap that holds the reply the prompt asks for, a draft and the nine sections: the draft is asked for.
    summary, [req] = await _compact(12_000)
    assert (req.body.get("max_completion_tokens") or req.body.get("max_tokens")) >= DRAFT_MIN_CAP
    assert "draft your thoughts inside <analysis> tags" in req.last_user_text()
    assert summary == "Steps 0-5 done: the user wants the words counted."


async def test_a_draft_cut_off_before_its_summary_is_kept_as_the_summary() -> None:
    """A model that drafts anyway, and is cut off in the draft: what it wrote stands in, said to be cut
    off, where the compaction failed ("the model returned an empty summary") and the window stayed full."""
    summary, [req] = await _compact(2_048, drafts_anyway=True)
    cap = req.body.get("max_completion_tokens") or req.body.get("max_tokens")
    assert summary.startswith("Walking through the steps in order.") and summary.endswith(CUT_OFF)
    assert len(summary) - len(CUT_OFF) <= cap * 4 and "<analysis>" not in summary


def calls_a_tool_first(asked: list[tuple[int, list[str]]]) -> FunctionModel:
    """A summary model that answers its first request with a tool call (refused), then `SUMMARY`;
    each request's max_tokens and user texts go to `asked`."""
    def model(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        texts = [p.content for m in messages if isinstance(m, ModelRequest) for p in m.parts
                 if isinstance(p, UserPromptPart) and isinstance(p.content, str)]
        asked.append(((info.model_settings or {}).get("max_tokens", 0), texts))
        if len(asked) == 1:
            return ModelResponse(parts=[ToolCallPart("read_file", {"path": "notes.md"})])
        return ModelResponse(parts=[TextPart(SUMMARY)])
    return FunctionModel(model)


async def test_a_retry_after_a_refused_tool_call_is_worded_for_its_own_cap() -> None:
    """A reply that calls a tool is refused and the summary asked for again, with the call and the
    refusal in the request: its cap, smaller, may fall under `DRAFT_MIN_CAP` where the first did not.
    The retry asked for the draft still (the first request's words, and the refusal's), and a model
    that drafted as asked was cut off before its summary. It asks for the summary alone now."""
    asked: list[tuple[int, list[str]]] = []  # (max_tokens, the user texts of the request)
    model = calls_a_tool_first(asked)
    def cap(request: Sequence[ModelMessage]) -> int:  # the call and its refusal take 100 tokens of the room
        return DRAFT_MIN_CAP + 50 if len(request) <= 3 else DRAFT_MIN_CAP - 50

    summarize = SharedPrefixSummarizer(model, output_cap=cap)
    history: list[ModelMessage] = [ModelRequest(parts=[UserPromptPart("Count the words.")]),
                                   ModelResponse(parts=[TextPart("Counting.")])]
    assert await summarize(history, compact_prompt()) == SUMMARY
    (first_cap, first), (retry_cap, retry) = asked
    assert first_cap >= DRAFT_MIN_CAP and "draft your thoughts inside <analysis> tags" in first[-1]
    assert retry_cap < DRAFT_MIN_CAP
    assert not any("<analysis> tags" in text or "followed by a <summary> block" in text for text in retry)
    assert retry[-1].endswith(f"Reply with plain text only: {NO_DRAFT_BLOCKS}.")


async def test_a_retry_under_a_first_cap_without_a_draft_says_its_own_room() -> None:
    """Where the first request's cap was already under `DRAFT_MIN_CAP`, its words said that cap's room
    ("room for about 1,500 tokens"), and the retry, smaller after the refused call, asked for that much
    again with a `max_tokens` of 600: a model writing to the figure was cut off. It says 600 now."""
    asked: list[tuple[int, list[str]]] = []
    model = calls_a_tool_first(asked)
    summarize = SharedPrefixSummarizer(model, output_cap=lambda request: 1_500 if len(request) <= 3 else 600)
    await summarize([ModelRequest(parts=[UserPromptPart("Count the words.")]), ModelResponse(parts=[TextPart("Counting.")])],
                    compact_prompt())
    rooms = [(cap, [re.findall(r"room for about ([\d,]+) tokens", text) for text in texts]) for cap, texts in asked]
    assert rooms[0][0] == 1_500 and ["1,500"] in rooms[0][1]
    assert rooms[1][0] == 600 and ["600"] in rooms[1][1] and ["1,500"] not in rooms[1][1]
