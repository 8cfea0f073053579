"""Something else where a session's checkpoints go (a folder named checkpoints.json, a file named
blobs or checkpoints): each turn's checkpoint could not be written, and every run of the session
ended at its first message with exit 1 and Python's words ('Is a directory: …/.checkpoints.json.…tmp').
Checkpoints are off for that session instead: one warning line, the turns run, `/rewind` says why
it has none, and nothing that stands there is touched."""

from __future__ import annotations

import logging
from pathlib import Path

import pytest

from compact_agent.agent.tools.checkpoints import Checkpoints
from tests.fakes.openai_server import ChatRequest, FakeOpenAIServer, Reply


def writer(req: ChatRequest) -> Reply:
    if req.messages[-1]["role"] == "tool":
        return Reply.text("written")
    return Reply.tools([("write_file", {"path": "a.txt", "content": f"{req.last_user_text()}\n"})])


def index_of(home: Path) -> Path:
    found = list((home / "projects").rglob("checkpoints.json"))
    assert len(found) == 1, found
    return found[0]


def test_a_folder_where_the_checkpoint_list_goes_leaves_the_session_without_checkpoints(cli) -> None:
    with FakeOpenAIServer(writer) as server:
        args = ("--model", "fake-model", "--base-url", server.base_url, "--api-key", "k", "--yes")
        assert cli("-p", "one", *args).code == 0
        index = index_of(cli.home)
        index.unlink()
        (index / "kept").mkdir(parents=True)  # a folder, with something in it
        again = cli("-c", "-p", "two", *args)
        rewind = cli("-c", "-p", "/rewind", *args)
    assert (again.code, again.stdout) == (0, "written\n"), again.stderr
    said = f"checkpoints are off for this session, /rewind has none: a folder stands where the checkpoint list goes: {index}"
    assert again.stderr == f"compact-agent: warning: {said[:300]}\n", again.stderr  # (a long path cut)
    assert (cli.cwd / "a.txt").read_text() == "two\n"
    assert rewind.code == 0, rewind.stderr
    assert rewind.stdout == (f"no checkpoints: they are off for this session (a folder stands where the checkpoint "
                             f"list goes: {index})\n"), rewind.stdout
    assert (index / "kept").is_dir()


@pytest.mark.parametrize("where", ["store", "blobs"])
def test_a_file_where_a_folder_of_checkpoints_goes_turns_them_off(
        tmp_path: Path, caplog: pytest.LogCaptureFixture, where: str) -> None:
    store = tmp_path / "checkpoints"
    if where == "blobs":
        store.mkdir()
    blocker = store if where == "store" else store / "blobs"
    blocker.write_text("not ours\n")
    (tmp_path / "a.txt").write_text("before\n")
    with caplog.at_level(logging.WARNING):
        cps = Checkpoints(store).load()  # loaded twice, as a session does: said once
    what = "the checkpoints' folder" if where == "store" else "the folder of saved versions"
    assert cps.off == f"a file stands where {what} goes: {blocker}"
    assert [r.getMessage() for r in caplog.records] == [f"checkpoints are off for this session, /rewind has none: "
                                                        f"{cps.off}"]
    cps.begin(0, 0, "write a.txt")
    cps.before_write(tmp_path / "a.txt")
    assert cps.list() == [] and cps.current is None
    assert blocker.read_text() == "not ours\n"
