"""/rewind keeps the bytes of every file the agent changes, in the session's folder: an edit of a
project's `.env` put the provider key there in clear, the one file of ours that held it. The saved
version now holds a mark where the key was, and a rewind puts the key in use back in its place;
a version that held another key (the session resumed with a new one) is not put back, and the
rewind says so."""

from __future__ import annotations

import base64
import hashlib
from pathlib import Path

import pytest

from compact_agent.agent.run.options import SessionOptions
from compact_agent.agent.run.runner import AgentSession
from compact_agent.agent.tools.checkpoints import Checkpoints
from tests.fakes.openai_server import ChatRequest, FakeOpenAIServer, Reply

KEY = "sk-test-77aa0c9a8b7d6e5f4a3b2c1d0e9f8a7b"
ENV = f"A=1\nOPENAI_API_KEY={KEY}\nDEBUG=0\n"


def _model(req: ChatRequest) -> Reply:
    done = sum(1 for m in req.messages if m["role"] == "tool")
    if done == 0:
        return Reply.tools([("read_file", {"path": ".env"}, "r1")])
    if done == 1:
        return Reply.tools([("edit_file", {"path": ".env", "old_string": "DEBUG=0", "new_string": "DEBUG=1"}, "e1")])
    return Reply.text("done")


async def test_an_edited_env_file_keeps_the_key_out_of_the_session_folder_and_rewinds_whole(tmp_path: Path) -> None:
    cwd, home = tmp_path / "project", tmp_path / "home"
    cwd.mkdir()
    (cwd / ".env").write_text(ENV)
    with FakeOpenAIServer(_model, api_key=KEY) as server:
        s = AgentSession(SessionOptions(cwd=cwd, model="fake-model", base_url=server.base_url, api_key=KEY,
                                        permission_mode="yes", home=home))
        try:
            await s.run_turn("turn debugging on")
            assert (cwd / ".env").read_text() == ENV.replace("DEBUG=0", "DEBUG=1")
            leaks = [p for p in home.rglob("*") if p.is_file() and KEY.encode() in p.read_bytes()]
            assert not leaks, leaks
            back = s.rewind(0)
        finally:
            s.close()
    assert (cwd / ".env").read_text() == ENV  # the key is back where it was
    assert not back.lost


def test_a_version_that_held_another_key_is_not_put_back(tmp_path: Path) -> None:
    from compact_agent import secrets

    secrets.register(KEY)
    cwd = tmp_path / "project"
    cwd.mkdir()
    (cwd / ".env").write_text(ENV)
    cps = Checkpoints(tmp_path / "store")
    cps.begin(0, 0, "go")
    cps.before_write(cwd / ".env")
    (cwd / ".env").write_text("changed\n")
    [blob] = (tmp_path / "store" / "blobs").iterdir()
    other = hashlib.sha256(b"sk-another-key-0000000000").hexdigest()[:16]
    blob.write_bytes(blob.read_bytes().replace(hashlib.sha256(KEY.encode()).hexdigest()[:16].encode(), other.encode()))
    assert cps.unrestorable(0) == ([], [])
    assert cps.sealed(0) == [cwd / ".env"]
    cps.rewind(0)
    assert (cwd / ".env").read_text() == "changed\n"


@pytest.mark.parametrize(("name", "data"), [
    (".env", f"\ufeffOPENAI_API_KEY={KEY}\r\n".encode("utf-16-le")),  # what Windows PowerShell's `>` writes
    (".env", f"OPENAI_API_KEY={KEY}\n".encode("utf-32-be")),
    ("secret.yaml", f"data:\n  OPENAI_API_KEY: {base64.b64encode(KEY.encode()).decode()}\n".encode()),
    ("secret.yaml", base64.b64encode(f"xy{KEY}".encode())),
    ("notes.txt", f"backwards: {KEY[::-1]}\n".encode()),
])
def test_the_key_in_another_encoding_is_not_kept_in_a_version_and_rewinds_whole(tmp_path: Path, name: str,
                                                                                 data: bytes) -> None:
    """The mark stood only for the key as UTF-8 bytes: a `.env` in UTF-16 or a Kubernetes secret
    holding it base64-encoded put it in the session's folder as it was."""
    from compact_agent import secrets

    secrets.register(KEY)
    cwd = tmp_path / "project"
    cwd.mkdir()
    (cwd / name).write_bytes(data)
    cps = Checkpoints(tmp_path / "store")
    cps.begin(0, 0, "go")
    cps.before_write(cwd / name)
    (cwd / name).write_text("changed\n")
    forms = [KEY, KEY[::-1], *(base64.b64encode(pad + KEY.encode()).decode()[4:-4] for pad in (b"", b"x", b"xy"))]
    held = [(p.name, f, enc) for p in (tmp_path / "store").rglob("*") if p.is_file()
            for f in forms for enc in ("utf-8", "utf-16-le", "utf-16-be", "utf-32-le", "utf-32-be")
            if f.encode(enc) in p.read_bytes()]
    assert not held
    assert cps.unrestorable(0) == ([], [])
    cps.rewind(0)
    assert (cwd / name).read_bytes() == data
