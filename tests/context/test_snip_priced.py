"""L2 snip priced: a read superseded by an identical later one is replaced by a pointer where that
rewrite of the prompt pays (`Snip._price`), as microcompact's clearing is; unpriced, as before.
The cost in a replayed session: tests/replay/test_reads_again_keep_the_cache.py."""

from __future__ import annotations

from datetime import timedelta

from pydantic_ai.messages import (
    ModelMessage,
    ModelRequest,
    ModelResponse,
    TextPart,
    ToolCallPart,
    ToolReturnPart,
    UserPromptPart,
)

from compact_agent.context.decisions.economics import Prices
from compact_agent.context.layers.snip import SUPERSEDED, Snip
from compact_agent.context.plumbing import tokens
from compact_agent.context.plumbing.events import Budget
from tests.context.strategies import BASE as T0
from tests.replay.synthetic import FILES, text_of


def _budget(messages: list[ModelMessage], *, ttl: float = 3_600.0) -> Budget:
    """DeepSeek's prices, a warm cache (the newest answer 5 s old), the next compaction at 100K, 3K a request."""
    answered = max(m.timestamp for m in messages if isinstance(m, ModelResponse))
    return Budget(window=128_000, threshold=100_000, tokens=tokens.estimate(messages), now=answered + timedelta(seconds=5),
                  cache_ttl_s=ttl, prices=Prices(), growth=3_000.0, compact_at=100_000)


def turns(*steps: list[tuple[str, str]]) -> list[ModelMessage]:
    """One turn a step list: each (tool, path or command) called and answered, then a closing answer;
    a last typed message asks the next request."""
    msgs: list[ModelMessage] = []
    t = T0
    for k, calls in enumerate(steps):
        msgs.append(ModelRequest(parts=[UserPromptPart(f"step {k}", timestamp=t)]))
        for tool, arg in calls:
            t += timedelta(seconds=20)
            cid = f"c{sum(isinstance(p, ToolCallPart) for m in msgs for p in m.parts)}"
            args, out = ({"path": arg}, text_of(arg)) if tool == "read_file" else ({"command": arg}, "log line\n" * 7_000)
            msgs += [ModelResponse(parts=[ToolCallPart(tool, args, tool_call_id=cid)], timestamp=t),
                     ModelRequest(parts=[ToolReturnPart(tool, out, tool_call_id=cid, timestamp=t)])]
        t += timedelta(seconds=20)
        msgs.append(ModelResponse(parts=[TextPart(f"step {k} done")], timestamp=t))
    msgs.append(ModelRequest(parts=[UserPromptPart("and now?", timestamp=t)]))
    return msgs


def superseded(out: list[ModelMessage]) -> list[str]:
    return [p.tool_call_id for m in out for p in m.parts if isinstance(p, ToolReturnPart) and p.content == SUPERSEDED]


READ = tokens.part_tokens(ToolReturnPart("read_file", text_of(FILES[0]), tool_call_id="c0"))
LOG = tokens.part_tokens(ToolReturnPart("bash", "log line\n" * 7_000, tool_call_id="c1"))


def test_a_deep_copy_stays_while_the_cache_is_warm_and_goes_once_it_has_expired() -> None:
    """Hand-computed: m0 read (~2K tokens), a 16K log, m0 read again. Replacing the first read re-sends
    the ~20K from it on once: 20K x (0.28 - 0.028) = 5,000 micro-USD; it saves 2K a request for the
    (100K - 20K + 2K) / 3K = 27 requests until the next compaction: 2K x 0.028 x 27 = 1,500. Not paid
    while the cache is warm; with it expired the prompt is re-sent whole anyway, and the copy goes."""
    assert 1_800 < READ < 2_200 and 15_000 < LOG < 18_000
    messages = turns([("read_file", FILES[0]), ("bash", "make test")], [("read_file", FILES[0])])
    warm = Snip().apply(messages, _budget(messages))
    assert superseded(warm.messages) == [] and warm.events == []
    cold = Snip().apply(messages, _budget(messages, ttl=1.0))
    assert superseded(cold.messages) == ["c0"]


def test_a_copy_near_the_end_goes_where_the_deeper_one_would_not_pay() -> None:
    """Hand-computed: m0 read three times, a 16K log after the first. The batch from the first read
    (it and the second: 4K freed) re-sends ~22K: 5,500 micro-USD against 4K x 0.028 x 27 = 3,000 saved:
    not paid. The batch from the second (2K freed) re-sends ~4K, the third read and a few lines:
    1,000 against 2K x 0.028 x 27 = 1,500: paid. Unpriced, both go, as before."""
    messages = turns([("read_file", FILES[0]), ("bash", "make test")], [("read_file", FILES[0])],
                     [("read_file", FILES[0])])
    assert superseded(Snip().apply(messages, _budget(messages)).messages) == ["c2"]
    unpriced = Budget(window=128_000, threshold=100_000, tokens=tokens.estimate(messages),
                      now=_budget(messages).now)
    assert superseded(Snip().apply(messages, unpriced).messages) == ["c0", "c2"]
