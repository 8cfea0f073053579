"""A line typed while the REPL's session is built, then the start fails (a window too small for the
system prompt and the tools): the line was saved the moment it was entered (journal.py), and was
left behind as a session of its own that `-c` took for the last conversation. A failed start now
takes it back: no session is left for it, and an earlier session it resumed keeps the history it
had. Killed while starting, the line stays (test_typed_prompt_kill.py)."""

from __future__ import annotations

import pytest

from compact_agent.models import UsageError
from compact_agent.session.store import load_session_file
from tests.fakes.openai_server import Reply

from .repl_driver import drive

TOO_SMALL = 3_072  # the tools and system prompt alone need more


def answer(req) -> Reply:
    return Reply.text("ANSWERED")


async def test_a_failed_start_leaves_no_session_for_the_line_typed_meanwhile(tmp_path):
    with pytest.raises(UsageError, match="context window cannot hold"):
        await drive(tmp_path, answer, [], first_message="remember PELICAN", context_window=TOO_SMALL)
    projects = tmp_path / "home" / "projects"
    assert list(projects.glob("*/*.jsonl")) == []
    assert [p.name for p in projects.glob("*/*")] == ["prompt_history"]  # no session folder, no lock


async def test_a_failed_start_of_a_resumed_session_leaves_its_history_as_it_was(tmp_path):
    first = await drive(tmp_path, answer, ["hello\r"])
    assert first.prompts == ["hello"]
    [path] = (tmp_path / "home" / "projects").glob("*/*.jsonl")
    before = load_session_file(path).messages
    with pytest.raises(UsageError):
        await drive(tmp_path, answer, [], first_message="remember PELICAN", continue_last=True,
                    context_window=TOO_SMALL)
    after = load_session_file(path)
    assert after.messages == before and not after.warnings  # no unanswered "remember PELICAN"
    again = await drive(tmp_path, answer, ["go on\r"], continue_last=True)
    assert again.prompts[-1] == "go on" and "remember PELICAN" not in again.out
