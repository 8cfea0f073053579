"""A summary request pre-trimmed to its room finds the history's rounds once. It found them again
after each round it dropped: the first compaction of a resumed session of 6,000 messages never
compacted took most of a minute (21 s for 3,000 rounds here), all of it in `_pretrimmed`."""

from __future__ import annotations

from pydantic_ai.messages import (
    ModelRequest,
    ModelResponse,
    TextPart,
    ToolCallPart,
    ToolReturnPart,
    UserPromptPart,
)

from compact_agent.context.compaction import cuts
from compact_agent.context.plumbing import rounds, tokens


def history(n: int, result_chars: int = 3_300) -> list:
    msgs: list = [ModelRequest(parts=[UserPromptPart("fix the parser")])]
    for i in range(n):
        msgs.append(ModelResponse(parts=[TextPart(f"step {i}"), ToolCallPart("read_file", {"path": f"f{i}.py"},
                                                                              tool_call_id=f"c{i}")]))
        msgs.append(ModelRequest(parts=[ToolReturnPart("read_file", "x" * result_chars, tool_call_id=f"c{i}")]))
    return msgs


def test_the_rounds_are_found_once_however_many_are_dropped(monkeypatch) -> None:
    found = []
    real = rounds.api_rounds
    monkeypatch.setattr(rounds, "api_rounds", lambda m: found.append(len(m)) or real(m))
    msgs = history(3_000)  # 6,001 messages: the opening request, then 3,000 rounds of a call and its result
    sent, dropped, kept = cuts._pretrimmed(msgs, 100_000, len(msgs) - 4)
    assert found == [len(msgs)]  # once (was once for each of the 2,883 rounds dropped)
    # The 2 newest rounds (kept verbatim by the compaction), then the oldest after the first.
    start = msgs.index(kept[1])
    assert dropped == 2_883 == 2 + (start - 1) // 2 and kept == [msgs[0], *msgs[start:len(msgs) - 4]]
    assert tokens.estimate(cuts.user_first(sent)) <= 100_000
    assert tokens.estimate([msgs[start - 2], msgs[start - 1], *kept]) > 100_000  # one round more would not fit


def test_newest_rounds_first_then_the_oldest_after_the_first_then_the_first() -> None:
    msgs = history(6, result_chars=400)  # rounds: msgs[0:1], then msgs[1:3], [3:5], ... [11:13]
    size = [tokens.estimate(msgs[a:b]) for a, b in rounds.api_rounds(msgs)]
    assert len(size) == 7 and len(set(size[1:])) == 1
    # The newest rounds from kept_from (message 9, where the sixth round starts) on go first.
    sent, dropped, kept = cuts._pretrimmed(msgs, sum(size[:5]), 9)
    assert dropped == 2 and kept == msgs[:9] and sent == kept
    # Then the oldest after the first: three of them, the opening request and the fifth round kept.
    sent, dropped, kept = cuts._pretrimmed(msgs, size[0] + size[4], 9)
    assert dropped == 5 and kept == [msgs[0], *msgs[7:9]]
    # Of the last two, the first goes: the fifth round alone, after a line saying the rest is left out.
    sent, dropped, kept = cuts._pretrimmed(msgs, size[0] + size[4] - 1, 9)
    assert dropped == 6 and kept == msgs[7:9]
    assert isinstance(cuts.user_first(kept)[0], ModelRequest) and cuts.LEFT_OUT in str(cuts.user_first(kept)[0])
