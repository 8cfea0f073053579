"""The toolbar's cost after `-c` or `/resume`: it said this run's `$0.0000` while /cost said the
whole session (every run) cost $0.0080. It now says the session's, as such (`session $0.0080`); a
session with no earlier run says its cost alone, as before."""

from __future__ import annotations

from pathlib import Path

from compact_agent.agent.accounting.costs import Entry
from compact_agent.agent.run.options import SessionOptions
from compact_agent.agent.run.runner import AgentSession
from compact_agent.ui.toolbar import status_line
from tests.fakes.openai_server import FakeOpenAIServer, Reply


def test_a_resumed_session_shows_what_the_whole_session_cost(tmp_path: Path) -> None:
    (tmp_path / "project").mkdir()
    with FakeOpenAIServer(lambda req: Reply.text("ok")) as server:
        s = AgentSession(SessionOptions(cwd=tmp_path / "project", model="deepseek-chat", base_url=server.base_url,
                                        api_key="k", home=tmp_path / "home"))
        try:
            fresh = status_line(s, 200)
            s.ext.ledger.earlier = [Entry("main", s.info, 20_000, 0, 0, 1_000)]  # an earlier run's request
            resumed = status_line(s, 200)
        finally:
            s.close()
    assert "$0.0000" in fresh and "session $" not in fresh, fresh
    spent = s.info.cost(20_000, 0, 1_000, 0)
    assert f"session ${spent:.4f}" in resumed and spent > 0.001, resumed
