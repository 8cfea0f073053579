"""A /compact refused because it would free too little changes nothing, as it says ('Nothing was
changed'). Its check measured the context with the request's own shaping, which decided for a
request that was never sent: with the prompt cache expired, old tool results were cleared (frozen
for every later request, counted, and said in a line of their own above the refusal)."""

from __future__ import annotations

import json
from datetime import timedelta
from pathlib import Path

import pytest

from compact_agent.agent.run.options import SessionOptions
from compact_agent.agent.run.runner import AgentSession
from compact_agent.context import Event, NotSmaller
from tests.fakes.openai_server import ChatRequest, FakeOpenAIServer, Reply

TURNS = 7  # more results than microcompact keeps (5): the oldest are cleared once the cache expired


def answer(req: ChatRequest) -> Reply:
    k = req.last_user_text().split()[1]
    if req.messages[-1]["role"] == "tool":
        return Reply.text(f"ok {k}")
    return Reply.tools([("read_file", {"path": f"data/f{k}.txt"}, f"read_{k}")])


async def test_a_refused_compact_clears_nothing(tmp_path: Path) -> None:
    cwd = tmp_path / "project"
    (cwd / "data").mkdir(parents=True)
    for k in range(TURNS):
        (cwd / "data" / f"f{k}.txt").write_text("\n".join(f"line {i} of {k}" for i in range(3)))
    events: list[Event] = []
    with FakeOpenAIServer(answer) as server:
        s = AgentSession(SessionOptions(cwd=cwd, model="fake-model", base_url=server.base_url, api_key="k",
                                        permission_mode="yes", home=tmp_path / "home"), events.append)
        try:
            for k in range(TURNS):
                await s.run_turn(f"step {k}")
            later = s.cm.clock() + timedelta(hours=2)
            s.cm.clock = lambda: later
            decisions, savings, seen = json.dumps(s.cm.layer_state(), sort_keys=True), dict(s.cm.layer_savings), len(events)
            with pytest.raises(NotSmaller, match="would free at most"):
                await s.compact()
            assert [(e.layer, e.action) for e in events[seen:]] == []
            assert json.dumps(s.cm.layer_state(), sort_keys=True) == decisions
            assert s.cm.layer_savings == savings
        finally:
            s.close()
