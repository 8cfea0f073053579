"""A compacted session is listed by the prompt it began with and every message it has had.

A compaction rewrites the session file as its summary and what it kept, so the listing read the new
file's first message: a session of 60 messages that began 'Requirement M0: …' was listed as
'12 messages  Requirement M14: … …[cut; …]' (the oldest user message the summary still carried),
and its count shrank at each compaction. `/resume` then said the 12 it holds."""

from __future__ import annotations

from pathlib import Path

import pytest
from pydantic_ai.messages import ModelRequest, ModelResponse, TextPart, UserPromptPart
from typer.testing import CliRunner

from compact_agent.cli import app
from compact_agent.session.store import SessionStore
from compact_agent.ui.sessions_list import first_prompt
from tests.e2e.test_session import parser_talk, session
from tests.fakes.openai_server import FakeOpenAIServer
from tests.ui.repl_driver import drive


def requirement(n: int) -> str:
    return f"Requirement M{n}: " + " ".join(f"clause{n}.{i} the calculator must support decimal precision;" for i in range(12))


@pytest.fixture
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("COMPACT_AGENT_HOME", str(tmp_path / "home"))
    monkeypatch.setenv("COMPACT_AGENT_CONFIG", str(tmp_path / "none.toml"))
    (tmp_path / "project").mkdir()
    monkeypatch.chdir(tmp_path / "project")
    return tmp_path


async def test_a_session_compacted_again_and_again_is_listed_as_it_began(project: Path) -> None:
    with FakeOpenAIServer(parser_talk) as server:
        s = session(project, server, window=8000)
        for n in range(20):
            await s.run_turn(requirement(n))
        held, compactions = len(s.messages), len(s.cm.compactions)
        s.close()
    assert compactions >= 3 and held < 20, (compactions, held)
    res = CliRunner().invoke(app, ["sessions"])
    assert res.exit_code == 0, res.output
    row = next(line for line in res.output.splitlines() if s.session_id in line)
    assert "   40 messages  Requirement M0: clause0.0 the calculator" in row, row

    # /resume names both: the count the list shows, and what the compactions left.
    run = await drive(project, parser_talk, [f"/resume {s.session_id}\r"])
    assert f"resumed session {s.session_id} (40 messages, compacted to {held})" in run.out, run.out


def test_a_rewind_counts_only_the_messages_it_keeps(tmp_path: Path) -> None:
    """The count goes on across a compaction (its summary and kept tail stand for messages already
    counted) and drops by what a rewind undoes; the first prompt stays through both."""
    store = SessionStore(tmp_path, "20261203-1200-ab12")
    said = [ModelRequest(parts=[UserPromptPart(f"ask {i}")]) if i % 2 == 0 else ModelResponse(parts=[TextPart(f"answer {i}")])
            for i in range(8)]
    store.append(said[:4])
    summary = ModelRequest(parts=[UserPromptPart("This session continues a conversation that was compacted")],
                           metadata={"compact_agent": {"kind": "summary", "user_messages": ["ask 2"]}})
    store.rewrite({"trigger": "auto", "strategy": "full", "tokens_before": 9, "tokens_after": 3, "archive": ""},
                  [summary, *said[2:4]])
    assert first_prompt(store.path) == ("ask 0", 4)
    store.append(said[4:6])
    assert first_prompt(store.path) == ("ask 0", 6)
    store.rewrite({"trigger": "auto", "strategy": "full", "tokens_before": 9, "tokens_after": 3, "archive": ""},
                  [summary, *said[4:6]])
    store.append(said[6:8])
    assert first_prompt(store.path) == ("ask 0", 8)
    store.rewrite({"trigger": "rewind", "strategy": "rewind", "tokens_before": 0, "tokens_after": 0, "archive": ""},
                  [summary, *said[4:7]])  # the last answer undone
    assert first_prompt(store.path) == ("ask 0", 7)
    store.append(said[7:8])
    assert first_prompt(store.path) == ("ask 0", 8)
