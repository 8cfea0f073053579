"""When a session's options and its unanswered messages are settled in the file (store.py, journal.py,
loading.py): a session a run starts keeps its options from its very first line (also one its
early-saved prompt made, which a kill while starting may leave alone); new options of a resumed session
wait for the model's first reply; a message a killed run left is told of until a reply follows it."""

from __future__ import annotations

import json

from pydantic_ai.messages import ModelRequest, ModelResponse, TextPart, UserPromptPart

from compact_agent.session import journal, remembered
from compact_agent.session.remembered import ToRemember
from compact_agent.session.store import SessionStore, load_session_file

STARTED = {"model": "fake-model", "base_url": "http://127.0.0.1:9/v1", "context_window": 16_000,
           "ran_with": "fake-model"}
SWITCHED = {"model": "other-model", "ran_with": "other-model"}
UNANSWERED = {"compact_agent": {"synthetic": "unanswered"}}


def exchange(q: str) -> list:
    return [ModelRequest(parts=[UserPromptPart(q)]), ModelResponse(parts=[TextPart(f"re {q}")])]


def started(tmp_path):
    """A session started with the options STARTED, one exchange in it: its file."""
    with remembered.remembering(ToRemember(STARTED)):
        s = SessionStore(tmp_path, "s1")
        s.lock()
        s.append(exchange("q0"))
        s.unlock()
    assert remembered.options_of(s.path) == STARTED
    return s.path


def kinds(path) -> list[str]:
    return [json.loads(line)["kind"] for line in path.read_text().splitlines()]


def test_a_prompt_saved_before_its_new_session_existed_keeps_the_options_with_it(tmp_path):
    """Killed right after the early save, the session still says what it was started with."""
    with remembered.remembering(ToRemember(STARTED)):
        journal.save_prompt_early(tmp_path, "s1", "typed early")
    path = tmp_path / "s1.jsonl"
    assert kinds(path) == ["meta", "prompt"]
    assert remembered.options_of(path) == STARTED
    with remembered.remembering(ToRemember(STARTED)):  # the run goes on: its store does not say it again
        s = SessionStore(tmp_path, "s1")
        s.lock()
        s.append(exchange("typed early"))
        s.unlock()
    assert kinds(path) == ["meta", "prompt", "message", "message"]
    assert [m.parts[0].content for m in load_session_file(path).messages] == ["typed early", "re typed early"]


def test_a_prompt_saved_early_in_the_session_resumed_writes_no_options(tmp_path):
    SessionStore(tmp_path, "s1").append(exchange("q0"))
    path = tmp_path / "s1.jsonl"
    with remembered.remembering(ToRemember(SWITCHED, path)):
        journal.save_prompt_early(tmp_path, "s1", "try the other model")
    assert kinds(path) == ["message", "message", "prompt"]


def test_new_options_of_a_resumed_session_wait_for_a_reply_of_the_model(tmp_path):
    path = started(tmp_path)
    with remembered.remembering(ToRemember(SWITCHED, path)):
        s = SessionStore(tmp_path, "s1")
        s.lock()
        s.load()
        s.save_prompt("q1")
        s.append([ModelRequest(parts=[UserPromptPart("q1")])])  # sent; the endpoint did not answer
        s.append([ModelResponse(parts=[TextPart("closed")], metadata=UNANSWERED)])  # ours, not a reply
        s.unlock()
    assert remembered.options_of(path) == STARTED  # what worked
    with remembered.remembering(ToRemember(SWITCHED, path)):
        s = SessionStore(tmp_path, "s1")
        s.lock()
        s.load()
        assert s.options() == SWITCHED  # what this run goes on with
        s.append([ModelRequest(parts=[UserPromptPart("q2")])])
        assert remembered.options_of(path) == STARTED
        s.append([ModelResponse(parts=[TextPart("re q2")])])
        s.unlock()
    assert remembered.options_of(path) == SWITCHED
    assert kinds(path)[-2:] == ["meta", "message"]


def test_a_rewrite_before_the_first_reply_keeps_what_worked(tmp_path):
    path = started(tmp_path)
    with remembered.remembering(ToRemember(SWITCHED, path)):
        s = SessionStore(tmp_path, "s1")
        s.lock()
        s.load()
        s.rewrite({"trigger": "manual", "strategy": "rewind", "tokens_before": 9, "tokens_after": 1,
                   "archive": str(s.archive())}, exchange("q0")[:1])
        assert remembered.options_of(path) == STARTED
        s.append([ModelResponse(parts=[TextPart("re q0")])])
        s.unlock()
    assert remembered.options_of(path) == SWITCHED


def test_a_message_a_killed_run_left_is_told_of_until_a_reply_follows_it(tmp_path):
    s = SessionStore(tmp_path, "s1")
    s.append(exchange("q0"))
    s.save_prompt("remember A")  # killed here
    s = SessionStore(tmp_path, "s1")
    s.lock()
    s.load()
    s.save_prompt("remember B")  # the next run sends it, and the endpoint does not answer
    s.append([ModelResponse(parts=[TextPart("closed")], metadata=UNANSWERED),
              ModelRequest(parts=[UserPromptPart("remember B")])])
    s.unlock()
    [warning] = load_session_file(s.path).warnings
    assert "2 messages you typed had not reached the model when the last run ended: they are in" in warning
    s = SessionStore(tmp_path, "s1")
    s.lock()
    s.load()
    s.append([ModelResponse(parts=[TextPart("closed")], metadata=UNANSWERED), *exchange("go on")])
    s.unlock()
    loaded = load_session_file(s.path)
    assert not loaded.warnings
    assert [m.parts[0].content for m in loaded.messages if isinstance(m, ModelRequest)] == [
        "q0", "remember A", "remember B", "go on"]
