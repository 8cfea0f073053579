"""The copy `/rewind` keeps of a file changed by hand since the agent wrote it (agent/run/rewinding.py
`_keep`): the version replaced byte for byte, as the checkpoints keep versions (only the API key in
use sealed, a mark where it was), written only inside the session's `rewind-kept/<time>/` folder."""

from __future__ import annotations

import errno
import json
import os
from pathlib import Path

import pytest

from compact_agent import secrets
from compact_agent.agent.run import rewinding
from compact_agent.agent.run.options import SessionOptions
from compact_agent.agent.run.runner import AgentSession
from compact_agent.config import Settings
from tests.e2e.test_rewind_after_compaction import editor
from tests.fakes.openai_server import FakeOpenAIServer

KEY = "sk-test-5e4d3c2b1a0f9e8d7c6b5a4f3e2d1c0b"


def _session(tmp_path: Path, server: FakeOpenAIServer, extra_dirs: list[str] | None = None) -> AgentSession:
    cwd = tmp_path / "project"
    cwd.mkdir(exist_ok=True)
    return AgentSession(SessionOptions(cwd=cwd, model="fake-model", base_url=server.base_url, api_key=KEY,
                                       permission_mode="yes", home=tmp_path / "home",
                                       settings=Settings(memory_enabled=False, extra_dirs=extra_dirs or [])))


async def written_once(s: AgentSession) -> Path:
    """hello.txt at "zero", then written "one" by the agent's turn."""
    hello = s.cwd / "hello.txt"
    hello.write_text("zero\n")
    await s.run_turn("write one")
    return hello


def agent_wrote(s: AgentSession, path: Path) -> None:
    """`path` written "agent" in the turn's checkpoint, as the write tools write."""
    s.checkpoints.before_write(path)
    path.write_text("agent\n")
    s.checkpoints.wrote(path, b"agent\n")


async def test_the_copy_is_the_version_replaced_a_url_password_in_it_too(tmp_path: Path) -> None:
    """It was written as the session's own files are, redacted: a password the user typed in a URL
    became `***` in the copy, and the rewind then replaced the file: it existed nowhere."""
    mine = f"DB=postgres://app:hunter2pass@db.local/x\nOPENAI_API_KEY={KEY}\n".encode()
    with FakeOpenAIServer(editor, api_key=KEY) as server:
        s = _session(tmp_path, server)
        try:
            hello = await written_once(s)
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


async def test_a_list_that_spells_a_path_otherwise_does_not_lead_the_copy_out(tmp_path: Path) -> None:
    """checkpoints.json names hello.txt by a path that climbs past the root and down again: it is
    the project's file (a rewind may put it back), and the copy was named from the path as spelt,
    climbing out of the folder of kept copies. It is named by where the file is."""
    with FakeOpenAIServer(editor, api_key=KEY) as server:
        s = _session(tmp_path, server)
        try:
            hello = await written_once(s)
            hello.write_text("one\nMINE\n")
            index = s.store.dir / "checkpoints" / "checkpoints.json"
            listed = json.loads(index.read_text())
            key = str(hello)
            spelt = str(s.cwd) + "/.." * (len(s.cwd.parts) - 1) + key  # the same file
            assert Path(spelt).resolve() == hello
            first = listed["checkpoints"][0]
            listed_as = "hello.txt"  # the list names the project's files relative to it
            first["saved"], first["left"] = {spelt: first["saved"][listed_as]}, {spelt: first["left"][listed_as]}
            index.write_text(json.dumps(listed))
            s.checkpoints.load()
            back = s.rewind(0)
        finally:
            s.close()
    assert hello.read_text() == "zero\n"
    assert back.kept_in is not None and back.kept == [Path("hello.txt")]
    assert [p for p in back.kept_in.rglob("*") if p.is_file()] == [back.kept_in / "hello.txt"]
    climbed = Path(os.path.normpath(back.kept_in / Path(spelt).relative_to(s.cwd)))  # where it went
    assert not climbed.exists(), climbed


async def test_a_file_outside_the_project_does_not_share_a_name_with_one_in_it(tmp_path: Path) -> None:
    """`/data/x.txt` (in `extra_dirs`) was kept as `data/x.txt`, the name of the project's
    `data/x.txt`: the second copy replaced the first. With one outside, each has a root of its own."""
    extra = tmp_path / "extra"
    extra.mkdir()
    with FakeOpenAIServer(editor, api_key=KEY) as server:
        s = _session(tmp_path, server, extra_dirs=[str(extra)])
        try:
            hello, there = await written_once(s), extra / "x.txt"
            agent_wrote(s, there)
            hello.write_text("mine here\n")
            there.write_text("mine there\n")
            back = s.rewind(0)
        finally:
            s.close()
    assert back.kept_in is not None and not there.exists()
    assert (back.kept_in / "project" / "hello.txt").read_text() == "mine here\n"
    assert (back.kept_in / "elsewhere" / there.relative_to("/")).read_text() == "mine there\n"


async def test_a_copy_that_fails_leaves_none_and_names_the_file(tmp_path: Path, monkeypatch) -> None:
    """Two files changed by hand, the second copy fails (a full disk): nothing changes, as before,
    but the first copy stayed in a folder of its own (one more each time it was tried again), and
    the line said the session could not be saved. A session that cannot be saved after the copies
    removes them too."""
    with FakeOpenAIServer(editor, api_key=KEY) as server:
        s = _session(tmp_path, server)
        try:
            hello, other = await written_once(s), s.cwd / "b.txt"
            agent_wrote(s, other)
            hello.write_text("mine a\n")
            other.write_text("mine b\n")
            real, calls = rewinding.atomic_write_bytes, []

            def second_fails(path: Path, data: bytes, mode: int | None = None, *, checked: bool = False) -> None:
                calls.append(path)
                if len(calls) == 2:
                    raise OSError(errno.ENOSPC, "No space left on device", str(path.with_name(".b.txt.1234abcd.tmp")))
                real(path, data, mode, checked=checked)

            monkeypatch.setattr(rewinding, "atomic_write_bytes", second_fails)
            with pytest.raises(rewinding.RewindNotSaved) as e:
                s.rewind(0)
            monkeypatch.undo()
            assert str(e.value) == ("/rewind 0 changed nothing: the version of b.txt changed by hand could not be "
                                    "kept (No space left on device); the files and the conversation are as they were")
            assert not (s.store.dir / "rewind-kept").exists()

            def full() -> Path:
                raise OSError(errno.ENOSPC, "No space left on device")

            monkeypatch.setattr(s.store, "archive", full)
            with pytest.raises(rewinding.RewindNotSaved, match="the session could not be saved first"):
                s.rewind(0)
            monkeypatch.undo()
            assert not (s.store.dir / "rewind-kept").exists()
            assert (hello.read_text(), other.read_text()) == ("mine a\n", "mine b\n")
            back = s.rewind(0)  # room again: both kept
        finally:
            s.close()
    assert back.kept_in is not None and sorted(p.name for p in back.kept_in.iterdir()) == ["b.txt", "hello.txt"]
