"""`/resume` says `(N messages, compacted to M)` when compactions folded some of a session's
messages. A session never compacted whose load left a line out (one that reads as an entry but
holds no message a load can build, a tool result whose call was lost) was said to be `compacted
to` the messages it held: a compaction that never happened."""

from __future__ import annotations

import json
from pathlib import Path

from compact_agent.agent.run.options import SessionOptions
from compact_agent.agent.run.runner import AgentSession
from compact_agent.session import listing
from compact_agent.ui.sessions_list import resumed_size
from tests.fakes.openai_server import FakeOpenAIServer, Reply


def options(tmp_path: Path, server: FakeOpenAIServer, **kw) -> SessionOptions:
    cwd = tmp_path / "project"
    cwd.mkdir(exist_ok=True)
    return SessionOptions(cwd=cwd, model="fake-model", base_url=server.base_url, api_key="k",
                          home=tmp_path / "home", **kw)


async def test_a_line_the_load_leaves_out_is_no_compaction(tmp_path: Path) -> None:
    with FakeOpenAIServer(lambda req: Reply.text("ok")) as server:
        s = AgentSession(options(tmp_path, server))
        try:
            for prompt in ("one", "two"):
                await s.run_turn(prompt)
            path = s.store.path
        finally:
            s.close()
        last = json.loads(path.read_text().splitlines()[-1])["id"]
        bad = {"v": 1, "id": "bad000000001", "parent": last, "time": "2026-12-05T10:00:00+00:00",
               "kind": "message", "message": {"kind": "request", "parts": [{"part_kind": "user-prompt",
                                                                             "content": 5}]}}
        with path.open("a") as f:
            f.write(json.dumps(bad) + "\n")
        again = AgentSession(options(tmp_path, server, continue_last=True))
        try:
            held = listing.counted(again.messages)
            assert held == 4, again.messages  # the line left out: one, ok, two, ok
            assert resumed_size(again.store.path, held) == "4 messages"
        finally:
            again.close()
