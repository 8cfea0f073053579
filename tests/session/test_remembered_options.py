"""The command-line options a session keeps (session/remembered.py) as the store writes them: with
the first thing a new session saves, at once in the session the command line resumed when they
changed, never in another session, and carried over a rewrite (a compaction, `/rewind`)."""

from __future__ import annotations

import json

from pydantic_ai.messages import ModelRequest, ModelResponse, TextPart, UserPromptPart

from compact_agent.session import journal, remembered
from compact_agent.session.remembered import ToRemember
from compact_agent.session.store import SessionStore, load_session_file

WINDOW = {"context_window": 16_000, "ran_with": "fake-model"}


def exchange(q: str) -> list:
    return [ModelRequest(parts=[UserPromptPart(q)]), ModelResponse(parts=[TextPart(f"re {q}")])]


def kinds(store: SessionStore) -> list[str]:
    return [json.loads(line)["kind"] for line in store.path.read_text().splitlines()]


def test_a_new_session_saves_its_options_with_its_first_write_and_not_before(tmp_path):
    with remembered.remembering(ToRemember(WINDOW)):
        s = SessionStore(tmp_path, "s1")
        s.lock()
        assert not s.path.exists()  # a session that saves nothing leaves nothing
        s.append(exchange("q0"))
        s.append(exchange("q1"))
        s.unlock()
    assert kinds(s) == ["meta", "message", "message", "message", "message"]
    assert remembered.options_of(s.path) == WINDOW
    loaded = load_session_file(s.path)
    assert len(loaded.messages) == 4 and not loaded.warnings


def test_the_resumed_session_saves_changed_options_with_its_next_write_and_unchanged_ones_never(tmp_path):
    SessionStore(tmp_path, "s1").append(exchange("q0"))
    path = tmp_path / "s1.jsonl"
    with remembered.remembering(ToRemember(WINDOW, path, changed=False)):
        s = SessionStore(tmp_path, "s1")
        s.lock()
        s.load()
        s.append(exchange("q1"))
        s.unlock()
    assert kinds(s) == ["message"] * 4
    with remembered.remembering(ToRemember(WINDOW, path)):
        s = SessionStore(tmp_path, "s1")
        s.lock()
        s.unlock()  # opened and refused (a window too small): the file is as it was
        assert kinds(s) == ["message"] * 4
        s = SessionStore(tmp_path, "s1")
        s.lock()
        s.load()
        s.append(exchange("q2"))
        s.unlock()
    assert kinds(s) == ["message"] * 4 + ["meta", "message", "message"]
    lines = [json.loads(line) for line in path.read_text().splitlines()]
    assert lines[4]["parent"] == lines[3]["id"] and lines[5]["parent"] == lines[4]["id"]  # chained as appends are
    assert remembered.options_of(path) == WINDOW
    assert len(load_session_file(path).messages) == 6


def test_another_session_keeps_its_own(tmp_path):
    """The REPL's `/resume` opens another session with this run's options: they are not written there."""
    SessionStore(tmp_path, "other").append(exchange("q0"))
    with remembered.remembering(ToRemember(WINDOW, tmp_path / "s1.jsonl")):
        s = SessionStore(tmp_path, "other")
        s.lock()
        s.append(exchange("q1"))
        s.unlock()
    assert "meta" not in kinds(s)


def test_a_session_its_first_prompt_made_before_it_existed_gets_the_options(tmp_path):
    """The REPL (and print mode) save the first message before the session is built (journal.py):
    that new file is this run's session, and the options go in with its next write."""
    journal.save_prompt_early(tmp_path, "s1", "typed early")
    with remembered.remembering(ToRemember(WINDOW)):
        s = SessionStore(tmp_path, "s1")
        s.lock()
        s.append(exchange("typed early"))
        s.unlock()
    assert kinds(s) == ["prompt", "meta", "message", "message"]
    assert remembered.options_of(s.path) == WINDOW
    loaded = load_session_file(s.path)
    assert [m.parts[0].content for m in loaded.messages] == ["typed early", "re typed early"]
    assert not loaded.warnings


def test_a_rewrite_carries_the_options_over(tmp_path):
    with remembered.remembering(ToRemember(WINDOW)):
        s = SessionStore(tmp_path, "s1")
        s.lock()
        s.append(exchange("q0"))
    s.rewrite({"trigger": "manual", "strategy": "full", "tokens_before": 9, "tokens_after": 1,
               "archive": str(s.archive()), "time": "2026-01-01T00:00:00+00:00"}, exchange("summary"))
    assert kinds(s) == ["boundary", "meta", "message", "message"]
    assert remembered.options_of(s.path) == WINDOW
    assert len(load_session_file(s.path).messages) == 2
    s.unlock()


def test_options_of_a_hand_edited_file_takes_only_values_of_the_right_type(tmp_path):
    path = tmp_path / "s.jsonl"
    path.write_text(json.dumps({"v": 1, "id": "a", "parent": None, "time": "", "kind": "meta",
                                "meta": {"options": {"context_window": "16k", "max_turns": True, "model": "m",
                                                     "unknown": 1}}}) + "\nnot json \"meta\"\n")
    assert remembered.options_of(path) == {"model": "m"}
    assert remembered.options_of(tmp_path / "missing.jsonl") == {}


def test_a_model_switch_keeps_the_window_given_with_it_and_drops_one_given_for_the_old_model():
    saved = {"model": "m1", "base_url": "http://h/v1", "context_window": 16_000, "ran_with": "m1"}
    assert remembered.after_switch(saved, "m2", 20_000, known=True) == {
        "model": "m2", "base_url": "http://h/v1", "context_window": 20_000, "ran_with": "m2"}
    assert remembered.after_switch(saved, "deepseek-chat", None, known=True) == {
        "model": "deepseek-chat", "base_url": "http://h/v1", "ran_with": "deepseek-chat"}
    assert remembered.after_switch(saved, "local-model", None, known=False)["context_window"] == 16_000
    assert remembered.after_switch({}, "m2", None, known=False) == {"model": "m2", "ran_with": "m2"}


def test_prices_are_remembered_and_follow_a_switch_only_to_another_model_the_registry_does_not_know(tmp_path):
    prices = [1.0, 0.1, 2.0, 1.0]
    path = tmp_path / "s.jsonl"
    path.write_text(json.dumps({"v": 1, "id": "a", "parent": None, "time": "", "kind": "meta",
                                "meta": {"options": {"prices": prices, "ran_with": "m1"}}}) + "\n")
    assert remembered.options_of(path) == {"prices": prices, "ran_with": "m1"}
    saved = {"model": "m1", "prices": prices, "ran_with": "m1"}
    assert remembered.to_apply(saved, {}, "m1") == {"model": "m1", "prices": prices}
    assert remembered.to_apply(saved, {"model": "m2"}, "m2") == {}  # `-c --model m2`: not m1's prices
    assert remembered.after_switch(saved, "local-model", None, known=False)["prices"] == prices
    assert "prices" not in remembered.after_switch(saved, "deepseek-chat", None, known=True)


def test_options_kept_later_are_written_at_once_or_with_the_first_write(tmp_path):
    s = SessionStore(tmp_path, "s1")
    s.lock()
    s.keep_options({"model": "m2", "ran_with": "m2"})  # a switch before anything was saved: no file yet
    assert not s.path.exists() and s.options() == {"model": "m2", "ran_with": "m2"}
    s.append(exchange("q0"))
    s.keep_options({"model": "m3", "ran_with": "m3"})
    s.unlock()
    assert kinds(s) == ["meta", "message", "message", "meta"]
    assert remembered.options_of(s.path) == {"model": "m3", "ran_with": "m3"} == s.options()
    lines = [json.loads(line) for line in s.path.read_text().splitlines()]
    assert lines[3]["parent"] == lines[2]["id"]
    assert len(load_session_file(s.path).messages) == 2
