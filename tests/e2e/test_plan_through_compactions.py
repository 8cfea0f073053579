"""The plan through many compactions: one current copy, never a step the user took.

A session in a 16K window makes a plan, reads twenty files one by one (each compaction a record
the program writes), changing the plan halfway. The plan is put back after each compaction as the
program's own context. A record of the steps before a compaction used to list each of those
copies as "- User: [compact-agent: current plan] …", stale ones included, and showed the plan's
`todo_write` call as `todos=&lt;list>`; records appended to records carried every copy on.
"""

from __future__ import annotations

import re

from compact_agent.agent.run.options import SessionOptions
from compact_agent.agent.run.runner import AgentSession
from compact_agent.agent.tools.todos import PLAN_HEAD
from compact_agent.config import Settings
from tests.fakes.openai_server import FakeOpenAIServer, Reply, message_text

from .scripted import is_summary_request

FIRST = [{"content": "read the sources", "status": "in_progress"},
         {"content": "write the report", "status": "pending"}]
SECOND = [{"content": "read the sources", "status": "done"},
          {"content": "write the report", "status": "in_progress"}]
FILES = 20


def request_text(req) -> str:
    return "\n".join(message_text(m) for m in req.messages)


async def test_after_many_compactions_the_request_holds_one_plan_the_current_one(tmp_path):
    cwd = tmp_path / "project"
    cwd.mkdir()
    for i in range(FILES):
        (cwd / f"part_{i:02d}.txt").write_text("".join(f"part {i} line {n}: {'data ' * 12}\n" for n in range(60)))
    step = {"n": 0}

    def responder(req):
        if is_summary_request(req):
            return Reply.text("<summary>Read the parts so far; the report is next.</summary>")
        last = req.last_user_text()
        if "make a plan" in last:
            return Reply.tools([("todo_write", {"todos": FIRST})])
        if "read every part" in last or step["n"]:
            n = step["n"]
            step["n"] += 1
            if n == FILES // 2:
                return Reply.tools([("todo_write", {"todos": SECOND})])
            i = n if n < FILES // 2 else n - 1
            if i < FILES:
                return Reply.tools([("read_file", {"path": f"part_{i:02d}.txt"})])
            step["n"] = 0
            return Reply.text("all parts read")
        return Reply.text("plan saved")

    events: list = []
    with FakeOpenAIServer(responder, window=16_000, model="deepseek-chat") as server:  # known prices: records pay
        opts = SessionOptions(cwd=cwd, model="deepseek-chat", base_url=server.base_url, api_key="k",
                              context_window=16_000, permission_mode="yes", home=tmp_path / "home",
                              settings=Settings(memory_enabled=False))
        s = AgentSession(opts, on_event=events.append)
        try:
            await s.run_turn("make a plan for the report")
            await s.run_turn("read every part, one by one")
        finally:
            await s.aclose()
    compactions = [e for e in events if e.layer == "compact" and e.action in ("record", "full")]
    assert len(compactions) >= 3, [e.action for e in events if e.layer == "compact"]
    last = request_text(server.requests[-1])
    assert last.count(PLAN_HEAD) == 1  # the plan as it now stands, once
    assert "[x] read the sources" in last and "[~] write the report" in last
    assert "[~] read the sources" not in last  # the first plan is gone with the steps it belonged to
    assert not re.search(r"User: \[compact-agent:", last)  # the program's context is no step of the user's
    assert "&lt;" not in last and "todo_write(todos=[2 items])" in last
    assert "- User: read every part, one by one" in last or "read every part, one by one" in last
