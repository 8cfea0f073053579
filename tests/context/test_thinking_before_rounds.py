"""The last resort (fit.py) leaves the model's earlier thinking out before any round.

A DeepSeek-like server that does not count the `reasoning_content` sent back, an 8K window, short
text turns each a process of its own (`-c -p`): the calibration learned that the thinking is not
counted, but a request is judged to fit with it until two reports in a row of one process agree, so
every request was judged over the window and the last resort left out 9 rounds (14,299 → 7,562 tokens)
of requests the server counted at ~1,336. Leaving the thinking out loses less than the rounds and is
as safe size-wise: a request that fits without it now goes without it, its rounds all there.
"""

from __future__ import annotations

from pathlib import Path

from compact_agent.agent.run.options import SessionOptions
from compact_agent.agent.run.runner import AgentSession
from compact_agent.context import Event
from tests.fakes.openai_server import ChatRequest, FakeOpenAIServer, Reply

REASONING = "consider the call sites then " * 200  # 5,800 characters: ~1,450 tokens an answer


def answer(req: ChatRequest) -> Reply:
    return Reply.text("Noted.", reasoning_content=REASONING)


async def test_a_request_that_fits_without_the_thinking_keeps_its_rounds(tmp_path: Path) -> None:
    events: list[Event] = []
    with FakeOpenAIServer(answer, window=8_000) as server:
        for turn in range(8):
            s = AgentSession(SessionOptions(cwd=tmp_path, model="fake-model", base_url=server.base_url, api_key="k",
                                            context_window=8_000, home=tmp_path / "home", continue_last=turn > 0),
                             on_event=events.append)
            try:
                await s.run_turn(f"note {turn}")
            finally:
                s.close()
    assert not server.rejected
    shrinks = [e for e in events if (e.layer, e.action) == ("budget", "shrink")]
    assert shrinks  # the requests were judged over the window with the thinking
    assert all(e.detail["rounds_left_out"] == 0 and e.detail["previews"] == 0 for e in shrinks), \
        [e.detail for e in shrinks]
    assert all(e.detail["thinking_left_out"] for e in shrinks)
    # What it freed is what the server counted of it: nothing, so no line says "freed 9,756 tokens"
    # of an 8K window (the sizes it was judged by count the thinking).
    assert all(e.tokens_before - e.tokens_after > 2_000 and e.tokens_freed * 100 < 8_000 for e in shrinks), \
        [(e.tokens_before, e.tokens_after, e.tokens_freed) for e in shrinks]
    assert not [e for e in events if e.layer == "compact"]
    last = server.requests[-1]
    assert all(f"note {turn}" in last.all_text() for turn in range(8))  # every turn still in the request
    assert last.prompt_tokens < 2_000  # what the server counted of it (system prompt and tools included)
