"""A record standing in for a summary the window forced must bring the request, as it will be sent,
to the hard limit: the largest request that leaves the model room for its reply. One that freed
less (a 4K window's record freed 8%) left the next request with no room for its reply, and that
request compacted again, archiving the whole transcript each time. Such a record is made again
keeping less, and where that frees too little too, not made (full_window.py)."""

from __future__ import annotations

import pytest
from pydantic_ai.messages import (
    ModelMessage,
    ModelRequest,
    ModelResponse,
    SystemPromptPart,
    ToolCallPart,
    ToolReturnPart,
    UserPromptPart,
)

from compact_agent.context import ContextManager
from compact_agent.context.compaction.result import CompactionResult, RecordTooWeak, SummaryNotSent
from compact_agent.context.full_window import record_ceiling

# window 8,000 - max_output 1,000 (the room kept for the reply) - 160 (a fiftieth, the estimate's margin)
HARD_LIMIT = 6_840


def manager(reason: str) -> ContextManager:
    cm = ContextManager(window=8_000, max_output=1_000)
    cm._reason = reason  # what the schedule said of this request (pipeline.py)
    return cm


def test_the_ceiling_is_the_hard_limit_where_the_window_forced_the_compaction() -> None:
    assert record_ceiling(manager("window"), "auto") == HARD_LIMIT
    # the provider refused the request: what it takes, 8,000 less the 160 of margin (no max_tokens asked)
    assert record_ceiling(manager(""), "reactive") == 7_840
    assert record_ceiling(manager("threshold"), "auto") is None  # not forced: what a record frees is taken
    assert record_ceiling(manager("window"), "manual") is None  # a /compact asked for


def history(system_words: int) -> list[ModelMessage]:
    """A system prompt of `system_words` * 6 characters (1.5 tokens a word by characters/4), which a
    record keeps, and ten reads of ~250 tokens each, which it records."""
    out: list[ModelMessage] = [ModelRequest(parts=[SystemPromptPart("Rule. " * system_words),
                                                   UserPromptPart("Survey the logs.")])]
    for i in range(10):
        out += [ModelResponse(parts=[ToolCallPart("read", {"page": i}, tool_call_id=f"c{i}")]),
                ModelRequest(parts=[ToolReturnPart("read", f"page {i} " + "word " * 200, tool_call_id=f"c{i}")])]
    return out


async def record(cm: ContextManager, messages: list[ModelMessage], archived: list[int],
                 trigger: str = "auto") -> CompactionResult:
    def archive() -> None:
        archived.append(1)
    return await cm._record_instead(messages, SummaryNotSent("the summary request would not fit"), archive,
                                    trigger, cm.measure(messages), 0, lambda result: None)


async def test_a_record_left_over_the_hard_limit_is_not_made() -> None:
    # 4,300 * 6 / 4 = 6,450 tokens of system prompt: over the 6,840 with the least record beside it.
    cm, messages, archived = manager("window"), history(4_300), []
    with pytest.raises(RecordTooWeak, match=r"^a record would leave the request at [\d,]+ tokens, over the 6,840 "
                                            r"that leave the model room for its reply: not made$") as caught:
        await record(cm, messages, archived)
    assert HARD_LIMIT < caught.value.after < caught.value.before  # smaller, and still over
    assert archived == []  # refused before the transcript was copied


async def test_a_record_under_the_hard_limit_is_made() -> None:
    # 3,800 * 6 / 4 = 5,700 tokens of system prompt: the record fits beside it under the 6,840.
    cm, messages, archived = manager("window"), history(3_800), []
    done = await record(cm, messages, archived)
    assert done.strategy == "record" and archived == [1]
    assert cm.sent_size(done.messages, done.kept) + 5_700 <= HARD_LIMIT


async def test_one_not_forced_by_the_window_is_made_whatever_it_frees() -> None:
    cm, messages, archived = manager("threshold"), history(4_300), []
    done = await record(cm, messages, archived)
    assert done.strategy == "record" and archived == [1]


async def test_one_answering_a_refusal_is_made_where_the_provider_takes_the_request() -> None:
    # The record of test_a_record_left_over_the_hard_limit_is_not_made, over the hard limit and under
    # the 7,840 the provider takes: refused, the run would end on the provider's refusal; made, the
    # request is sent, and the next one's compaction and last resort bring it to the hard limit.
    cm, messages, archived = manager(""), history(4_300), []
    done = await record(cm, messages, archived, "reactive")
    assert done.strategy == "record" and archived == [1]
    assert HARD_LIMIT < cm.sent_size(done.messages, done.kept) + 6_450 <= 7_840


async def test_one_answering_a_refusal_past_what_the_provider_takes_is_not_made() -> None:
    # 5,000 * 6 / 4 = 7,500 tokens of system prompt: with the least record beside it, over 7,840.
    cm, messages, archived = manager(""), history(5_000), []
    with pytest.raises(RecordTooWeak, match=r"over the 7,840 "):
        await record(cm, messages, archived, "reactive")
    assert archived == []
