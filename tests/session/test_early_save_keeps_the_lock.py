"""The lock a prompt saved before its session is built takes is kept until the session opens.

Let go of between the early save (journal.py, `save_prompt_early`) and the store's lock, a second
run of the same session saved its prompt in it too, and was refused as in use only when its own
store opened: its prompt went to the model with the first run's turn. Here "another run" asks the
lock on a descriptor of its own (locks.py, `check_free`), which an flock tells apart as it tells two
processes apart."""

from __future__ import annotations

from pathlib import Path

import pytest
from pydantic_ai.messages import ModelRequest, ModelResponse, TextPart, UserPromptPart

from compact_agent.session import journal, locks
from compact_agent.session.files import SessionLocked
from compact_agent.session.locks import check_free
from compact_agent.session.store import SessionStore, load_session_file


def said(path: Path) -> list[str]:
    return [str(p.content) for m in load_session_file(path).messages for p in m.parts]


def answered(root: Path) -> Path:
    s = SessionStore(root, "s1")
    s.append([ModelRequest(parts=[UserPromptPart("q0")]), ModelResponse(parts=[TextPart("re q0")])])
    return s.path


def test_another_run_is_refused_between_the_early_save_and_the_session(tmp_path):
    path = answered(tmp_path)
    journal.save_prompt_early(tmp_path, "s1", "cont 1")
    with pytest.raises(SessionLocked):
        check_free(tmp_path, "s1")  # a second `-c -p` asking now is refused
    assert locks.hold(tmp_path / "s1", "s1", tmp_path) is None  # as its early save takes it: refused too
    s = SessionStore(tmp_path, "s1")
    s.lock()  # the session opens: it takes the lock over (no refusal of its own run)
    try:
        with pytest.raises(SessionLocked):
            check_free(tmp_path, "s1")
        assert said(path) == ["q0", "re q0", "cont 1"]  # the run's own prompt, nobody else's
        assert [str(p.content) for m in s.load().messages for p in m.parts] == ["q0", "re q0"]
        assert s.prompt_pending()  # its own turn's, on its way to the model
    finally:
        s.unlock()
    check_free(tmp_path, "s1")  # let go of with the run
    assert locks.kept(tmp_path / "s1") is None


def test_messages_typed_while_the_session_is_built_are_all_saved(tmp_path):
    """The REPL saves each line entered while its session is built: the second save keeps using
    the lock the first took, and the store takes it over."""
    path = answered(tmp_path)
    journal.save_prompt_early(tmp_path, "s1", "first line")
    journal.save_prompt_early(tmp_path, "s1", "second line")
    assert said(path) == ["q0", "re q0", "first line", "second line"]
    s = SessionStore(tmp_path, "s1")
    s.lock()
    s.unlock()
    check_free(tmp_path, "s1")


def test_taking_the_prompt_back_lets_go_of_the_lock(tmp_path):
    path = answered(tmp_path)
    entry = journal.save_prompt_early(tmp_path, "s1", "refused")
    journal.take_back_early(tmp_path, "s1", entry, new=False)
    check_free(tmp_path, "s1")
    assert said(path) == ["q0", "re q0"]
    assert locks.kept(tmp_path / "s1") is None


def test_a_session_the_save_made_is_taken_back_with_its_lock_let_go_of(tmp_path):
    entry = journal.save_prompt_early(tmp_path, "s2", "refused")
    journal.take_back_early(tmp_path, "s2", entry, new=True)
    assert not (tmp_path / "s2.jsonl").exists()
    check_free(tmp_path, "s2")
    assert locks.kept(tmp_path / "s2") is None
