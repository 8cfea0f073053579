"""A session whose start fails after its store took the lock lets go of it.

Only the window check's refusal closed the session (and so let go of the lock); any other failure
after the lock — the load of a session file raising, the agent's build — left the lock held by the
store of a session that never came to be. The REPL, its start failed, then takes back the line
typed while the session was being built (repl_building.py, `take_back`): it asks the lock anew,
is refused by its own process's descriptor as another process's would be, and takes nothing back,
so the line stayed saved, unanswered, shown by the next `-c` as typed and never sent.
"""

from __future__ import annotations

import errno
from pathlib import Path
from types import SimpleNamespace

import pytest
from pydantic_ai.messages import ModelRequest, ModelResponse, TextPart, UserPromptPart
from rich.console import Console

from compact_agent.agent.run import runner
from compact_agent.agent.run.options import SessionOptions, session_root
from compact_agent.agent.run.runner import AgentSession
from compact_agent.config import Settings
from compact_agent.session.locks import check_free
from compact_agent.session.store import SessionStore, load_session_file
from compact_agent.ui.repl_building import keep_typed, take_back
from compact_agent.ui.repl_start import Start


def options(tmp_path: Path, **kw) -> SessionOptions:
    cwd = tmp_path / "project"
    cwd.mkdir(exist_ok=True)
    return SessionOptions(cwd=cwd, model="fake-model", base_url="http://127.0.0.1:9/v1", api_key="k",
                          home=tmp_path / "home", **kw)


def building(opts: SessionOptions, session_id: str, exists: bool) -> SimpleNamespace:
    """The REPL while its session is being built, as keep_typed and take_back read it."""
    return SimpleNamespace(opts=opts, session=None, early=None, console=Console(record=True),
                           start=Start("fake-model", 100_000, session_id, exists))


def said(path: Path) -> list[str]:
    return [str(p.content) for m in load_session_file(path).messages for p in m.parts]


def test_a_load_that_raises_lets_go_of_the_lock_and_the_typed_line_is_taken_back(tmp_path, monkeypatch):
    opts = options(tmp_path)
    root = session_root(opts.cwd.resolve(), opts.home)
    SessionStore(root, "s1").append([ModelRequest(parts=[UserPromptPart("q0")]),
                                     ModelResponse(parts=[TextPart("re q0")])])
    r = building(opts, "s1", exists=True)
    keep_typed(r, "typed while starting")  # saved the moment Enter was pressed, before the session
    assert r.early is not None
    assert said(root / "s1.jsonl") == ["q0", "re q0", "typed while starting"]

    def failing_load(self: SessionStore):
        raise OSError(errno.EIO, "Input/output error", str(self.path))

    monkeypatch.setattr(SessionStore, "load", failing_load)
    with pytest.raises(OSError, match="Input/output error"):
        AgentSession(opts, resolved=("s1", True))
    monkeypatch.undo()

    take_back(r)  # the REPL, its start failed
    assert said(root / "s1.jsonl") == ["q0", "re q0"]  # the line is taken back: the history as it was
    check_free(root, "s1")
    again = SessionStore(root, "s1")
    again.lock()  # another run may open the session
    again.unlock()


def test_a_build_that_fails_late_lets_go_of_the_lock_and_the_session_it_made(tmp_path, monkeypatch):
    """Later in the start, with the notes made (what close lets go of besides the lock): a session
    the typed line made goes with the line."""
    opts = options(tmp_path, settings=Settings(memory_enabled=True))
    root = session_root(opts.cwd.resolve(), opts.home)
    r = building(opts, "s2", exists=False)
    keep_typed(r, "typed while starting")
    assert (root / "s2.jsonl").exists()

    def failing_agent(*args, **kwargs):
        raise RuntimeError("the agent could not be built")

    monkeypatch.setattr(runner, "Agent", failing_agent)
    with pytest.raises(RuntimeError, match="could not be built"):
        AgentSession(opts, resolved=("s2", False))
    monkeypatch.undo()

    take_back(r)
    assert not (root / "s2.jsonl").exists()
    check_free(root, "s2")
    again = SessionStore(root, "s2")
    again.lock()
    again.unlock()
