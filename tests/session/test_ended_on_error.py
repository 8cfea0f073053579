"""A turn that failed (the server unreachable, a request refused as too long) marks its cause after
what it saved (last_run.ENDED_ON_ERROR): where the history still ends there, a load says that
cause, not 'interrupted, killed or out of turns'; a later reply makes the mark stale, a later
stop by the user is said as such, and a key in the cause is never saved."""

from __future__ import annotations

from pydantic_ai.messages import ModelRequest, ModelResponse, TextPart, UserPromptPart

from compact_agent.session.last_run import ENDED_ON_ERROR
from compact_agent.session.store import SessionStore

from .test_stopped_at_work import AT_WORK, at_work

CAUSE = "the server at http://127.0.0.1:9/v1 did not answer (connection refused)"


def test_the_cause_of_an_error_is_said_where_the_history_still_ends_there(tmp_path):
    s = SessionStore(tmp_path, "s1")
    s.append(at_work())
    s.append_meta(**{ENDED_ON_ERROR: CAUSE})
    loaded = SessionStore(tmp_path, "s1").load()
    assert loaded.warnings == [f"s1.jsonl: the last run ended on an error after the model's tool calls ran ({CAUSE}): "
                               "your next message goes on from there"], loaded.warnings
    assert AT_WORK not in loaded.warnings[0] and loaded.notes == []
    assert "ended_on_error" not in str(loaded.meta)  # a mark of where the history was, not a setting
    # The next run went on and got its answer: the mark says nothing of that history.
    s.append([ModelResponse(parts=[TextPart("looked")]), ModelRequest(parts=[UserPromptPart("again")])])
    again = SessionStore(tmp_path, "s1").load()
    assert len(again.warnings) == 1 and "got no answer saved before the last run ended" in again.warnings[0]
    assert "ended on an error" not in again.warnings[0]


def test_an_unanswered_message_says_the_cause_too(tmp_path):
    s = SessionStore(tmp_path, "s1")
    s.append([ModelRequest(parts=[UserPromptPart("fix the parser")])])
    s.append_meta(**{ENDED_ON_ERROR: "the server refused the request as too long for its window"})
    [warning] = SessionStore(tmp_path, "s1").load().warnings
    assert warning == ("s1.jsonl: 1 message you typed got no answer: the last run ended on an error (the server "
                       "refused the request as too long for its window); it is in the conversation, unanswered")


def test_the_latest_mark_says_how_the_run_ended(tmp_path):
    s = SessionStore(tmp_path, "s1")
    s.append(at_work())
    s.append_meta(**{ENDED_ON_ERROR: CAUSE})
    s.note_stopped()  # a later run at the same history, stopped by the user
    loaded = SessionStore(tmp_path, "s1").load()
    assert loaded.warnings == [] and loaded.notes == [
        "the last turn was stopped by you while the model was at work: your next message goes on from there"]
    s.note_error(CAUSE)  # …and one after that failed
    assert "ended on an error" in SessionStore(tmp_path, "s1").load().warnings[0]


def test_a_key_in_the_cause_is_not_saved(tmp_path, monkeypatch):
    from compact_agent.context.plumbing import secrets

    key = "sk-live-5e4d3c2b1a0f9e8d7c6b"
    for name, empty in (("registered_keys", set()), ("key_forms", set()), ("_spread", []), ("_bodies", set()),
                        ("_pieces", None)):
        monkeypatch.setattr(secrets, name, empty)  # registered for this test only
    secrets.register(key)
    s = SessionStore(tmp_path, "s1")
    s.append(at_work())
    s.note_error(f"the server at http://user:hunter2@127.0.0.1:9/v1 answered HTTP 401: bad key {key}")
    text = s.path.read_text()
    assert key[:12] not in text and "hunter2" not in text, text
    [warning] = SessionStore(tmp_path, "s1").load().warnings
    assert "[REDACTED]" in warning and "answered HTTP 401" in warning, warning


def test_the_cause_in_a_few_words():
    """The mark's words: the server not reached and a request refused as too long each in a few words
    (the error lines say more, and what to do); any other error by the first clause of its line."""
    from pydantic_ai.exceptions import ModelConnectionError, ModelHTTPError

    from compact_agent.agent.run.turn import error_cause

    refused = ModelConnectionError("m", "Connection error.")
    refused.__cause__ = ConnectionRefusedError(111, "Connection refused")
    assert error_cause(refused) == "the server did not answer (connection refused)"
    too_long = ModelHTTPError(400, "m", {"error": {"message": "This model's maximum context length is 4096 tokens. "
                                                              "However, you requested 5000 tokens"}})
    assert error_cause(too_long) == "the server refused the request as too long for its window"
    assert error_cause(ModelHTTPError(401, "m", {"error": {"message": "bad key"}})) == \
        "the provider answered HTTP 401: bad key"
