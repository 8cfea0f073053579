"""A library program may name the store's folder as text, as it would any path:
`SessionStore("sessions", "s1")` stopped with "'str' object has no attribute 'exists'"."""

from __future__ import annotations

from pathlib import Path

import pytest
from pydantic_ai.messages import ModelRequest, ModelResponse, TextPart, UserPromptPart

from compact_agent.session.store import SessionStore


def test_a_folder_named_as_text_is_the_same_store(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    store = SessionStore("sessions", "s1")
    store.append([ModelRequest(parts=[UserPromptPart("hello")]), ModelResponse(parts=[TextPart("hi")])])
    assert store.root == Path("sessions") and store.path == Path("sessions") / "s1.jsonl"
    again = SessionStore(tmp_path / "sessions", "s1")  # the same folder, named as a Path
    assert [type(m).__name__ for m in again.load_messages()] == ["ModelRequest", "ModelResponse"]
    assert (tmp_path / "sessions").stat().st_mode & 0o777 == 0o700
