"""Looking at the context does not change it. /context, /status and the toolbar (redrawn while the
user types) show the view the next request would send; they shaped it with the request's own
shaping, which froze what the layers decided: a collapse folded before the user's new message was
in it (so the request sent a smaller fold than it would have), a clearing, the layers' savings
counted and their events emitted, the fold logged, for a request that was never sent."""

from __future__ import annotations

import json
from datetime import timedelta
from pathlib import Path
from typing import Any

from compact_agent.agent.accounting.context_report import picture
from compact_agent.agent.run.options import SessionOptions
from compact_agent.agent.run.runner import AgentSession
from compact_agent.context import Event
from tests.fakes.openai_server import ChatRequest, FakeOpenAIServer, Reply

WINDOW = 16_000
TURNS = 12  # the context is then past the point where the collapse folds old rounds (its commit)
FILES = 40


def answer(req: ChatRequest) -> Reply:
    """Each 'step k' reads data/fk.txt, then answers at some length."""
    k = req.last_user_text().split()[1]
    if req.messages[-1]["role"] == "tool":
        return Reply.text(f"done with step {k}: " + "word " * 300)
    return Reply.tools([("read_file", {"path": f"data/f{k}.txt"}, f"read_{k}")])


def session(root: Path, server: FakeOpenAIServer, events: list[Event]) -> AgentSession:
    cwd = root / "project"
    (cwd / "data").mkdir(parents=True, exist_ok=True)
    for k in range(TURNS + 1):
        (cwd / "data" / f"f{k}.txt").write_text("\n".join(f"line {i}: lorem ipsum dolor {k}-{i}" for i in range(FILES)))
    return AgentSession(SessionOptions(cwd=cwd, model="fake-model", base_url=server.base_url, api_key="k",
                                       context_window=WINDOW, permission_mode="yes", home=root / "home"),
                        events.append)


def held(s: AgentSession, root: Path) -> dict[str, Any]:
    """What a look must leave as it was: the frozen decisions, the savings, the schedule's credit
    and every file of the session (its log of events, the collapse log, spilled results)."""
    cm = s.cm
    return {"decisions": json.dumps(cm.layer_state(), sort_keys=True, default=str),
            "layer_savings": dict(cm.layer_savings), "view_savings": dict(cm.view_savings),
            "prev_savings": dict(cm._prev_savings), "rebaseline": cm._rebaseline, "credit": cm.schedule.credit,
            "files": {str(p): p.read_bytes() for p in sorted((root / "home").rglob("*")) if p.is_file()}}


def look(s: AgentSession, root: Path, events: list[Event], layer: str) -> None:
    """/context, /status and the toolbar's looks show what `layer` will do, and change nothing."""
    before, seen = held(s, root), len(events)
    pic = picture(s)
    assert pic.kept_out.get(layer, 0) > 0, pic.kept_out
    assert s.context_tokens() < s.cm.limits.collapse_commit  # of the view as the layer leaves it
    assert events[seen:] == []
    assert held(s, root) == before
    assert picture(s) == pic  # looking again shows the same


async def test_a_look_at_the_context_decides_nothing(tmp_path: Path) -> None:
    events: list[Event] = []
    with FakeOpenAIServer(answer) as server:
        s = session(tmp_path, server, events)
        try:
            for k in range(TURNS):
                await s.run_turn(f"step {k}")
            # Past the collapse's commit: the look shows the old rounds folded, as the next request will.
            look(s, tmp_path, events, "collapse")
            later = s.cm.clock() + timedelta(hours=2)  # the prompt cache has expired: old results are cleared
            s.cm.clock = lambda: later
            look(s, tmp_path, events, "microcompact")
        finally:
            s.close()


async def test_a_request_after_a_look_sends_what_it_would_have_sent(tmp_path: Path) -> None:
    async def first_request_of_the_next_turn(root: Path, look: bool) -> str:
        sent: list[ChatRequest] = []

        def spy(req: ChatRequest) -> Reply:
            sent.append(req)
            return answer(req)
        with FakeOpenAIServer(spy) as server:
            s = session(root, server, [])
            try:
                for k in range(TURNS):
                    await s.run_turn(f"step {k}")
                if look:
                    picture(s)  # /context, or the toolbar redrawn while the user types
                n = len(sent)
                await s.run_turn(f"step {TURNS} " + "and please mind the details " * 300)
            finally:
                s.close()
        return json.dumps(sent[n].messages, sort_keys=True).replace(str(root), "<root>")

    looked = await first_request_of_the_next_turn(tmp_path / "a", look=True)
    assert looked == await first_request_of_the_next_turn(tmp_path / "b", look=False)
