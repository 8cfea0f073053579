"""A session's list of checkpoints is a file like any other in its folder: one written by hand, by
another program, or damaged, must not make `/rewind` write, delete or copy a file where the model's
own tools could not. The list names each file by its absolute path and each saved version by the
name of its blob; a rewind puts back only files inside the working directory (and the dirs granted
with extra_dirs), and reads a saved version only from the session's own store of them."""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

from compact_agent.agent.run.options import SessionOptions
from compact_agent.agent.run.runner import AgentSession
from compact_agent.agent.tools.checkpoints import Checkpoints
from tests.fakes.openai_server import ChatRequest, FakeOpenAIServer, Reply


def _model(req: ChatRequest) -> Reply:
    if req.messages[-1]["role"] == "tool":
        return Reply.text("written")
    return Reply.tools([("write_file", {"path": "a.txt", "content": "new\n"}, "w1")])


def _session(tmp_path: Path, server: FakeOpenAIServer, cwd: Path, *, resume: bool = False) -> AgentSession:
    return AgentSession(SessionOptions(cwd=cwd, model="fake-model", base_url=server.base_url, api_key="k",
                                       permission_mode="yes", home=tmp_path / "home", continue_last=resume))


async def _wrote(tmp_path: Path, server: FakeOpenAIServer, cwd: Path) -> Path:
    """One turn in `cwd` that writes a.txt (a checkpoint before it); the session's store of them."""
    s = _session(tmp_path, server, cwd)
    try:
        await s.run_turn("write a.txt")
        return s.checkpoints.store_dir
    finally:
        s.close()


def _edit_list(store: Path, edit: Callable[[dict[str, Any]], None]) -> None:
    """Change the first checkpoint of the list on disk, as a hand or another program would."""
    index = json.loads((store / "checkpoints.json").read_text())
    edit(index["checkpoints"][0])
    (store / "checkpoints.json").write_text(json.dumps(index))


async def test_a_hostile_checkpoint_list_cannot_make_rewind_touch_files_outside_the_project(tmp_path: Path) -> None:
    cwd, outside = tmp_path / "project", tmp_path / "outside"
    cwd.mkdir()
    outside.mkdir()
    (outside / "victim.txt").write_text("keep me\n")
    (outside / "secret.txt").write_text("TOPSECRET\n")
    with FakeOpenAIServer(_model) as server:
        store = await _wrote(tmp_path, server, cwd)
        assert (cwd / "a.txt").read_text() == "new\n"
        planted = b"ssh-rsa AAAA attacker\n"
        blob = hashlib.sha256(planted).hexdigest()
        (store / "blobs").mkdir(exist_ok=True)
        (store / "blobs" / blob).write_bytes(planted)
        _edit_list(store, lambda cp: cp["saved"].update({
            str(outside / "victim.txt"): None,  # "did not exist": a rewind would delete it
            str(outside / "authorized_keys"): blob,  # a rewind would write it
            str(cwd / "leak.txt"): str(outside / "secret.txt"),  # a "blob" outside the store, copied in
        }))
        s = _session(tmp_path, server, cwd, resume=True)
        try:
            back = s.rewind(0)
        finally:
            s.close()
    assert (outside / "victim.txt").read_text() == "keep me\n"
    assert not (outside / "authorized_keys").exists()
    assert not (cwd / "leak.txt").exists()
    assert not (cwd / "a.txt").exists()  # what the list rightly holds is still put back
    assert cwd / "a.txt" in back.restored
    assert "outside the working directory" in back.lost and str(outside / "victim.txt") in back.lost
    assert "\n" not in back.lost


def test_a_blob_name_that_is_no_blob_is_a_missing_version(tmp_path: Path) -> None:
    cwd = tmp_path / "project"
    cwd.mkdir()
    (tmp_path / "secret.txt").write_text("TOPSECRET\n")
    cps = Checkpoints(tmp_path / "store")
    cps.begin(0, 0, "go")
    cps.before_write(cwd / "a.txt")
    _edit_list(cps.store_dir, lambda cp: cp.update(saved={str(cwd / "a.txt"): "../../secret.txt"}))
    cps = Checkpoints(tmp_path / "store")
    assert cps.unrestorable(0) == ([], [cwd / "a.txt"])
    cps.rewind(0)
    assert not (cwd / "a.txt").exists()


async def test_a_checkpoint_cannot_name_another_conversation_as_its_archive(tmp_path: Path) -> None:
    """A checkpoint made before a compaction names the transcript that compaction archived, and a
    rewind to it takes the conversation from there. Named by a hostile list, that transcript could be
    any session file on the disk (another project's): a rewind takes it only from this session's
    own archives."""
    cwd, other = tmp_path / "project", tmp_path / "other"
    cwd.mkdir()
    sent: list[str] = []

    def model(req: ChatRequest) -> Reply:
        sent.append(json.dumps(req.messages))
        return _model(req)

    with FakeOpenAIServer(model) as server:
        s = _session(tmp_path, server, other)
        try:
            await s.run_turn("OTHER-PROJECT-SECRET 41d9")
            foreign = s.store.path
        finally:
            s.close()
        store = await _wrote(tmp_path, server, cwd)

        def named_foreign(cp: dict[str, Any]) -> None:
            cp.update({"archive": str(foreign), "history_len": 4})
            cp.pop("anchor", None)
        _edit_list(store, named_foreign)
        s = _session(tmp_path, server, cwd, resume=True)
        try:
            sent.clear()
            back = s.rewind(0)
            await s.run_turn("go on")
        finally:
            s.close()
    assert not any("OTHER-PROJECT-SECRET" in r for r in sent)
    assert not any("OTHER-PROJECT-SECRET" in str(m) for m in s.messages)
    assert "could not go back" in back.conversation
