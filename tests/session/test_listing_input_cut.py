"""A session whose only rewrite is of its prompt cut to the server's window (context/refit.py), the
request then failing, is listed as unanswered: the rewrite's boundary was taken for a compaction's
record of a conversation, which counts as a reply."""

from __future__ import annotations

from pydantic_ai.messages import ModelRequest, ModelResponse, TextPart, UserPromptPart
from typer.testing import CliRunner

from compact_agent.cli import app
from compact_agent.context.refit import INPUT_CUT
from compact_agent.session.store import SessionStore
from tests.session.test_listing_counts import sessions_root

CUT = "entry 0: the value is 0 … Full input saved to /x/input.txt … Which entry is the odd one out?"


def cut_session(store: SessionStore) -> None:
    store.append([ModelRequest(parts=[UserPromptPart("entry 0: the value is 0 " * 2_000)])])
    store.archive()
    store.rewrite({"trigger": INPUT_CUT, "strategy": "replace", "tokens_before": 0, "tokens_after": 0,
                   "archive": "", "time": "2026-12-03T14:00:28+00:00", "extra": {"window": 8_000}},
                  [ModelRequest(parts=[UserPromptPart(CUT)])])


def test_a_cut_prompt_the_model_never_answered_is_listed_unanswered(tmp_path, monkeypatch) -> None:
    store = SessionStore(sessions_root(tmp_path, monkeypatch), "20261203-1400-cut1")
    cut_session(store)
    res = CliRunner().invoke(app, ["sessions"])
    assert res.exit_code == 0, res.output
    assert "    1 message   entry 0: the value is 0" in res.output and "(unanswered)" in res.output, res.output


def test_a_cut_prompt_the_model_answered_is_listed_as_any(tmp_path, monkeypatch) -> None:
    store = SessionStore(sessions_root(tmp_path, monkeypatch), "20261203-1400-cut2")
    cut_session(store)
    store.append([ModelResponse(parts=[TextPart("entry 17")])])
    res = CliRunner().invoke(app, ["sessions"])
    assert res.exit_code == 0, res.output
    assert "    2 messages  entry 0: the value is 0" in res.output and "unanswered" not in res.output, res.output


def test_a_compacted_session_whose_prompt_is_cut_is_still_answered(tmp_path, monkeypatch) -> None:
    """The cut rewrites the file, and the compaction's boundary goes with it: its note still says
    the conversation held more than the file does, which a compaction's record answered."""
    store = SessionStore(sessions_root(tmp_path, monkeypatch), "20261203-1400-cut3")
    store.append([ModelRequest(parts=[UserPromptPart("fix the parser")]), ModelResponse(parts=[TextPart("done")]),
                  ModelRequest(parts=[UserPromptPart("and the lexer")]), ModelResponse(parts=[TextPart("done too")])])
    summary = ModelRequest(parts=[UserPromptPart("<summary>the parser and the lexer were fixed</summary>")])
    store.archive()
    store.rewrite({"trigger": "auto", "strategy": "summary", "tokens_before": 9_000, "tokens_after": 300,
                   "archive": "", "time": "2026-12-03T13:00:00+00:00"}, [summary])
    store.append([ModelRequest(parts=[UserPromptPart("entry 0: the value is 0 " * 2_000)])])
    store.archive()
    store.rewrite({"trigger": INPUT_CUT, "strategy": "replace", "tokens_before": 0, "tokens_after": 0,
                   "archive": "", "time": "2026-12-03T14:00:28+00:00", "extra": {"window": 8_000}},
                  [summary, ModelRequest(parts=[UserPromptPart(CUT)])])
    res = CliRunner().invoke(app, ["sessions"])
    assert res.exit_code == 0, res.output
    assert "    5 messages  fix the parser" in res.output and "unanswered" not in res.output, res.output
