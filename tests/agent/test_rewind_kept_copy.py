"""The copy `/rewind` keeps of a file changed by hand since the agent wrote it (agent/run/rewinding.py
`_keep`): the version replaced byte for byte, as the checkpoints keep versions (only the API key in
use sealed, a mark where it was), written only inside the session's `rewind-kept/<time>/` folder."""

from __future__ import annotations

from pathlib import Path

from compact_agent import secrets
from compact_agent.agent.run.options import SessionOptions
from compact_agent.agent.run.runner import AgentSession
from compact_agent.config import Settings
from tests.e2e.test_rewind_after_compaction import editor
from tests.fakes.openai_server import FakeOpenAIServer

KEY = "sk-test-5e4d3c2b1a0f9e8d7c6b5a4f3e2d1c0b"


def _session(tmp_path: Path, server: FakeOpenAIServer) -> AgentSession:
    cwd = tmp_path / "project"
    cwd.mkdir(exist_ok=True)
    return AgentSession(SessionOptions(cwd=cwd, model="fake-model", base_url=server.base_url, api_key=KEY,
                                       permission_mode="yes", home=tmp_path / "home",
                                       settings=Settings(memory_enabled=False)))


async def test_the_copy_is_the_version_replaced_a_url_password_in_it_too(tmp_path: Path) -> None:
    """It was written as the session's own files are, redacted: a password the user typed in a URL
    became `***` in the copy, and the rewind then replaced the file: it existed nowhere."""
    mine = f"DB=postgres://app:hunter2pass@db.local/x\nOPENAI_API_KEY={KEY}\n".encode()
    with FakeOpenAIServer(editor, api_key=KEY) as server:
        s = _session(tmp_path, server)
        try:
            hello = s.cwd / "hello.txt"
            hello.write_text("zero\n")
            await s.run_turn("write one")
            hello.write_bytes(mine)
            back = s.rewind(0)
        finally:
            s.close()
    assert hello.read_text() == "zero\n"
    assert back.kept_in is not None
    copy = (back.kept_in / "hello.txt").read_bytes()
    assert b"postgres://app:hunter2pass@db.local/x" in copy, copy
    assert KEY.encode() not in copy and secrets.unseal_bytes(copy) == mine, copy  # the key sealed, as in a version
    assert oct((back.kept_in / "hello.txt").stat().st_mode & 0o777) == "0o600"
