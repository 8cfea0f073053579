"""The last resort never sends a request over the window, even when the system prompt nearly fills it."""

from __future__ import annotations

from compact_agent.replay.ours import Ours
from compact_agent.replay.retention import key
from compact_agent.replay.simulate import TokenModel, replay, view_text

from ..replay.synthetic import session, sim


async def test_a_system_prompt_of_30_8k_in_a_32k_window_sends_nothing_over_it():
    """What the pipeline carries verbatim (the opening request, the carried words) gives way before
    a request goes out too long; the user's newest request keeps its first words in every request."""
    turns = [(f"please do task {i} " + "with details " * 40, [400, 300, 500]) for i in range(12)]
    t = session(turns, tool="Read")
    s = sim(32_000, TokenModel(overhead=30_800))
    ours = Ours(s)
    sent: list[str] = []
    step = ours.step

    async def spy(history, sim_):  # what each request holds
        out = await step(history, sim_)
        sent.append(view_text(out.view))
        return out

    ours.step = spy  # type: ignore[method-assign]
    try:
        run = await replay(t, ours, s)
    finally:
        ours.close()
    assert run.over_window == 0 and max(run.series) <= 32_000
    # Each request holds the newest typed request's first 200 characters.
    points = [i for i, m in enumerate(t.messages) if m.kind == "response"]
    for i, text in zip(points, sent, strict=True):
        newest = [p.content for m in t.messages[:i] if m.kind == "request" for p in m.parts
                  if p.part_kind == "user-prompt"][-1]
        assert key(newest) in text
