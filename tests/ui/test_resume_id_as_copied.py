"""The REPL's `/resume` takes a session's file as the sessions folder shows it (`ID.jsonl`, or its
path), as `-r` does: it said `no session ID.jsonl in this directory` of the very session."""

from __future__ import annotations

import pytest

from tests.fakes.openai_server import FakeOpenAIServer

from .repl_driver import drive
from .test_resume_keeps_options import answer, holding


@pytest.fixture
def server(tmp_path, monkeypatch):
    monkeypatch.setenv("COMPACT_AGENT_HOME", str(tmp_path / "home"))
    monkeypatch.setenv("COMPACT_AGENT_CONFIG", str(tmp_path / "none.toml"))  # not the user's own
    with FakeOpenAIServer(answer) as srv:
        yield srv


@pytest.mark.parametrize("as_path", [False, True])
async def test_resume_takes_the_session_file_name_and_path(tmp_path, server, as_path):
    await drive(tmp_path, answer, ["in the first session\r"], server=server)
    await drive(tmp_path, answer, ["in the second session\r"], server=server)
    first = holding(tmp_path, "in the first session")
    [path] = (tmp_path / "home" / "projects").glob(f"*/{first}.jsonl")
    run = await drive(tmp_path, answer, [f"/resume {path if as_path else path.name}\r", "and on\r"], server=server,
                      continue_last=True)
    assert "no session" not in run.out, run.out
    assert [m["content"] for m in server.requests[-1].messages if m["role"] == "user"] == \
        ["in the first session", "and on"]
