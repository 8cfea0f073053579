"""`/resume` opens the session it switches to once, with the options it runs with: when those
differed from the options of the session the REPL left, it was opened with the latter and then
again with its own — read twice from disk, its lock taken twice. `/config` then says the settings it
remembers come from the session."""

from __future__ import annotations

import re

import pytest

from compact_agent.cli_resume import as_remembered
from compact_agent.session.store import SessionStore
from tests.fakes.openai_server import FakeOpenAIServer

from .repl_driver import drive
from .test_resume_keeps_options import WINDOW, answer, command_line, sessions


@pytest.fixture
def server(tmp_path, monkeypatch):
    monkeypatch.setenv("COMPACT_AGENT_HOME", str(tmp_path / "home"))
    monkeypatch.setenv("COMPACT_AGENT_CONFIG", str(tmp_path / "none.toml"))  # not the user's own
    with FakeOpenAIServer(answer) as srv:
        yield srv


@pytest.fixture
def loads(monkeypatch) -> list[str]:
    """The ids of the sessions read from disk, in order."""
    read: list[str] = []
    load = SessionStore.load

    def counted(self: SessionStore, *args, **kwargs):
        read.append(self.session_id)
        return load(self, *args, **kwargs)

    monkeypatch.setattr(SessionStore, "load", counted)
    return read


async def test_resume_reads_a_session_with_other_options_once(tmp_path, server, loads):
    first, second = await sessions(tmp_path, server, WINDOW)
    loads.clear()
    cmd = command_line(tmp_path, server)
    run = await drive(tmp_path, answer, ["/resume 1\r", "/config\r", "/resume 1\r"], server=server,
                      continue_last=True, options_for=lambda path: as_remembered(cmd.for_session(path)))
    assert f"session {first} runs with fake-model · window 16,000, as it last ran\n" in run.out, run.out
    assert f"session {second} runs with fake-model · window 32,768\n" in run.out, run.out
    assert loads == [second, first, second], loads  # -c, then each /resume: once
    assert re.search(r"^context_window +16000 +session$", run.out, re.MULTILINE), run.out


async def test_resume_reads_a_session_with_the_same_options_once(tmp_path, server, loads):
    first, second = await sessions(tmp_path, server, {})
    loads.clear()
    run = await drive(tmp_path, answer, ["/resume 1\r"], server=server, continue_last=True,
                      options_for=command_line(tmp_path, server).for_session)
    assert f"resumed session {first}" in run.out and "runs with" not in run.out, run.out
    assert loads == [second, first], loads
