"""A session this run started that holds nothing to resume goes whole as the run ends (unused.py), its side
folder too; lines typed ahead and never sent are kept there (prompt_history.Unsent), so such a session stays,
and the next run that opens it gives them back: what the user typed is never lost."""

from __future__ import annotations

from pathlib import Path

from pydantic_ai.messages import ModelRequest, UserPromptPart

from compact_agent.session.prompt_history import Unsent
from compact_agent.session.store import SessionStore


def failed_start(root: Path, sid: str) -> SessionStore:
    """A session started by this run whose first request failed: the program's request, the line that says so."""
    store = SessionStore(root, sid)
    store.lock()
    store.append([ModelRequest(parts=[UserPromptPart("the program's request for /init")])])
    store.note_error("the provider rejected the API key")
    store.dir.mkdir(parents=True, exist_ok=True)
    return store


def test_a_failed_start_with_lines_typed_ahead_keeps_the_session_and_the_lines(tmp_path: Path) -> None:
    root = tmp_path / "projects" / "my-dir"
    plain = failed_start(root, "s1")
    assert plain.keeps_nothing()  # as it was: nothing typed, it goes
    plain.unlock()
    plain.remove_if_unused()
    assert not plain.path.exists() and not plain.dir.exists()

    typed = failed_start(root, "s2")
    Unsent(lambda: typed.dir).add("and then run the tests, PELICAN", "and then run the tests, PELICAN")
    assert not typed.keeps_nothing()
    typed.unlock()
    typed.remove_if_unused()
    assert typed.path.is_file()
    assert Unsent.take_left(typed.dir) == ["and then run the tests, PELICAN"]


def test_a_record_of_lines_typed_ahead_that_holds_none_keeps_nothing(tmp_path: Path) -> None:
    store = failed_start(tmp_path / "projects" / "my-dir", "s1")
    (store.dir / Unsent.NAME).write_text("[]")
    assert store.keeps_nothing()
    store.unlock()
