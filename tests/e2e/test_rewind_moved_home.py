"""`/rewind` to before a compaction in a sessions folder that was moved (a renamed home, the folder
copied to another machine): the checkpoints name the archive the compaction wrote relative to the
sessions folder, so the rewind finds it where the folder is now.

Before, the list held the archive's absolute path: once the folder had moved, the rewind said "the
transcript archived then, below, is missing" and the conversation could not go back before the
compaction. A list an earlier version wrote (absolute paths) is still read: the archive of that
name in the session's own archive folder is taken when the path it names is gone, or is not the
session's own (a copy whose original is still there)."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

from compact_agent.agent.run.options import SessionOptions
from compact_agent.agent.run.runner import AgentSession
from compact_agent.config import Settings
from tests.fakes.openai_server import FakeOpenAIServer

from .test_rewind_after_compaction import editor, prompts, written_twice_and_compacted


def opened(tmp_path: Path, server: FakeOpenAIServer, home: Path, sid: str | None = None) -> AgentSession:
    cwd = tmp_path / "project"
    cwd.mkdir(exist_ok=True)
    return AgentSession(SessionOptions(cwd=cwd, model="fake-model", base_url=server.base_url, api_key="k",
                                       permission_mode="yes", home=home, session_id=sid,
                                       settings=Settings(memory_enabled=False)))


async def compacted_in(tmp_path: Path, server: FakeOpenAIServer, home: Path) -> tuple[str, Path]:
    """Two turns that write hello.txt and a /compact, in a session under `home`: its id and the
    checkpoint list."""
    s = opened(tmp_path, server, home)
    try:
        _, archive = await written_twice_and_compacted(s)
        assert archive is not None and archive.is_relative_to(home)
        return s.session_id, s.store.dir / "checkpoints" / "checkpoints.json"
    finally:
        s.close()


def rewound_in(tmp_path: Path, server: FakeOpenAIServer, home: Path, sid: str) -> tuple[str, Path | None, list[str]]:
    """`/rewind 1` in session `sid` under `home`: what it said, the archive, the prompts left."""
    s = opened(tmp_path, server, home, sid)
    try:
        back = s.rewind(1)
        return back.conversation, back.archive, prompts(s.messages)
    finally:
        s.close()


async def test_a_moved_sessions_folder_rewinds_to_before_its_compaction(tmp_path):
    with FakeOpenAIServer(editor) as server:
        sid, listed = await compacted_in(tmp_path, server, tmp_path / "home")
        saved = json.loads(listed.read_text())["checkpoints"]
        assert saved[0]["archive"].startswith("compact-history/"), saved[0]  # not the path of this home
        shutil.move(tmp_path / "home", tmp_path / "moved")
        said, archive, left = rewound_in(tmp_path, server, tmp_path / "moved", sid)
    assert "the compaction is undone" in said, said
    assert archive is not None and archive.is_relative_to(tmp_path / "moved") and archive.is_file()
    assert left == ["write one"]
    assert (tmp_path / "project" / "hello.txt").read_text() == "one\n"


async def test_a_list_with_absolute_paths_finds_the_archive_where_the_folder_is_now(tmp_path):
    """As an earlier version wrote it: the archive named by its absolute path in the old home."""
    with FakeOpenAIServer(editor) as server:
        sid, listed = await compacted_in(tmp_path, server, tmp_path / "home")
        data = json.loads(listed.read_text())
        for entry in data["checkpoints"]:
            entry["archive"] = str(tmp_path / "home" / "projects" / listed.parents[2].name / entry["archive"])
        listed.write_text(json.dumps(data))
        shutil.copytree(tmp_path / "home", tmp_path / "copy")  # the original stays: not this session's own
        said, archive, left = rewound_in(tmp_path, server, tmp_path / "copy", sid)
        assert "the compaction is undone" in said, said
        assert archive is not None and archive.is_relative_to(tmp_path / "copy")
        assert left == ["write one"]
        shutil.rmtree(tmp_path / "copy")
        (tmp_path / "project" / "hello.txt").write_text("two\n")
        shutil.move(tmp_path / "home", tmp_path / "moved")  # the original gone
        said, archive, left = rewound_in(tmp_path, server, tmp_path / "moved", sid)
    assert "the compaction is undone" in said, said
    assert archive is not None and archive.is_relative_to(tmp_path / "moved")
    assert left == ["write one"]


async def test_a_home_given_as_a_relative_path(tmp_path, monkeypatch):
    """COMPACT_AGENT_HOME=.ca: the archive's path is relative to the working directory, and the list
    still names it relative to the sessions folder, found again where it is."""
    monkeypatch.chdir(tmp_path)
    with FakeOpenAIServer(editor) as server:
        sid, listed = await compacted_in(tmp_path, server, Path("home"))
        saved = json.loads(listed.read_text())["checkpoints"]
        assert saved[1]["archive"].startswith("compact-history/"), saved[1]
        said, archive, left = rewound_in(tmp_path, server, Path("home"), sid)
    assert "the compaction is undone" in said, said
    assert left == ["write one"]


def test_the_command_line_after_the_home_moved(cli, tmp_path):
    """As a user meets it: `-p` runs in one home, the home moved (COMPACT_AGENT_HOME changed with
    it), `-c -p "/rewind 1"` there."""
    from .test_rewind_after_compaction import fake

    (cli.cwd / "hello.txt").write_text("zero\n")
    with FakeOpenAIServer(editor) as server:
        for args in (("-p", "write one", "--yes"), ("-p", "write two", "--yes", "-c"), ("-p", "/compact", "-c")):
            done = cli(*args, *fake(server))
            assert done.code == 0, done.stderr
        moved = tmp_path / "moved-home"
        shutil.move(cli.home, moved)
        env = {"COMPACT_AGENT_HOME": str(moved), "COMPACT_AGENT_CONFIG": str(moved / "config.toml")}
        rewound = cli("-p", "/rewind 1", *fake(server), "-c", "--yes", env=env)
    assert rewound.code == 0, rewound.stderr
    out = " ".join(rewound.stdout.split())
    assert "from the transcript archived before the compaction" in out and str(moved) in out, out
    assert (cli.cwd / "hello.txt").read_text() == "one\n"
