"""A typed message is saved the moment it is entered: a run killed before its turn reaches the model
leaves it in the session, read back as the user's message, unanswered; a turn that sends it saves
it once; a turn that ended without sending it (interrupted) leaves the history as the run had it."""

from __future__ import annotations

from pydantic_ai.messages import ModelRequest, ModelResponse, TextPart, UserPromptPart

from compact_agent.session import journal
from compact_agent.session.store import SessionStore, load_session_file


def said(loaded) -> list[str]:
    return [str(p.content) for m in loaded.messages for p in m.parts]


def exchange(q: str) -> list:
    return [ModelRequest(parts=[UserPromptPart(q)]), ModelResponse(parts=[TextPart(f"re {q}")])]


def test_a_message_saved_then_killed_is_read_back_unanswered(tmp_path):
    s = SessionStore(tmp_path, "s1")
    s.append(exchange("q0"))
    s.save_prompt("remember PELICAN")  # ... and the process is killed here
    loaded = SessionStore(tmp_path, "s1").load()
    assert said(loaded) == ["q0", "re q0", "remember PELICAN"]
    assert isinstance(loaded.messages[-1], ModelRequest)
    assert loaded.warnings == ["s1.jsonl: 1 message you typed had not reached the model when the last run "
                               "ended: it is in the conversation, unanswered"]


def test_a_message_the_turn_sent_is_saved_once(tmp_path):
    s = SessionStore(tmp_path, "s1")
    s.save_prompt("hello")
    s.append([ModelRequest(parts=[UserPromptPart("ctx")], metadata={"context": ["hook"]}),  # ours: not it
              ModelRequest(parts=[UserPromptPart("hello")]), ModelResponse(parts=[TextPart("hi")])])
    assert not s.prompt_pending()
    loaded = load_session_file(s.path)
    assert said(loaded) == ["ctx", "hello", "hi"] and not loaded.warnings


def test_a_turn_that_never_sent_it_leaves_the_history_as_the_run_had_it(tmp_path):
    s = SessionStore(tmp_path, "s1")
    s.append(exchange("q0"))
    s.save_prompt("interrupted before the request")
    s.settle_prompt()
    s.save_prompt("next")
    s.append(exchange("next"))
    s.settle_prompt()  # sent: nothing to mark
    loaded = load_session_file(s.path)
    assert said(loaded) == ["q0", "re q0", "next", "re next"] and not loaded.warnings


def test_a_message_left_unsent_keeps_its_place_when_the_next_run_goes_on(tmp_path):
    s = SessionStore(tmp_path, "s1")
    s.append(exchange("q0"))
    s.save_prompt("lost?")  # killed
    again = SessionStore(tmp_path, "s1")
    again.lock()
    first = again.load()
    again.append([ModelResponse(parts=[TextPart("[closed]")])])  # what the next turn closes it with
    again.save_prompt("q2")
    again.append(exchange("q2"))
    again.unlock()
    assert said(load_session_file(s.path)) == [*said(first), "[closed]", "q2", "re q2"]


def test_a_message_saved_before_the_session_was_built_is_this_runs_own(tmp_path):
    SessionStore(tmp_path, "s1").append(exchange("q0"))
    journal.save_prompt_early(tmp_path, "s1", "typed early")
    s = SessionStore(tmp_path, "s1")
    s.lock()  # the session is built: it takes the message over, and does not read it as left unsent
    assert said(s.load()) == ["q0", "re q0"] and s.prompt_pending()
    s.append(exchange("typed early"))
    s.unlock()
    loaded = load_session_file(s.path)
    assert said(loaded) == ["q0", "re q0", "typed early", "re typed early"] and not loaded.warnings


def test_a_rewrite_before_the_message_was_sent_keeps_it(tmp_path):
    s = SessionStore(tmp_path, "s1")
    s.append(exchange("q0"))
    s.save_prompt("pending")
    s.rewrite({"trigger": "manual", "strategy": "full", "tokens_before": 1, "tokens_after": 1, "archive": "",
               "time": "t"}, exchange("summary"))
    assert said(load_session_file(s.path)) == ["summary", "re summary", "pending"]  # killed now: kept
    s.append(exchange("pending"))
    assert said(load_session_file(s.path)) == ["summary", "re summary", "pending", "re pending"]
