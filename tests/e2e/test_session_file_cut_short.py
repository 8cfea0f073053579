"""A session file emptied or cut short beside its archives is said in one line naming the newest
archive, from which the conversation can be taken back. `truncate -s 0` of a session with 18
archives resumed as an empty conversation, said only by the checkpoints the 'branch' dropped;
`sessions` listed it as '0 messages (no prompt)'. A run killed between a compaction's archive and
its rewrite leaves the file as it was (it begins as the archive does): nothing is said of it."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.fakes.openai_server import FakeOpenAIServer

from .test_rewind_after_compaction import editor, fake


def compacted(cli, server: FakeOpenAIServer, *, crash: str = "") -> Path:
    """Two turns, /compact (killed at `crash` when given), one more turn: the session file."""
    (cli.cwd / "hello.txt").write_text("zero\n")
    for n, word in enumerate(("one", "two")):
        assert cli("-p", f"write {word}", *fake(server), "--yes", *(["-c"] if n else [])).code == 0
    env = {"COMPACT_AGENT_CRASH_AT": crash} if crash else None
    done = cli("-p", "/compact", *fake(server), "-c", env=env)
    assert (done.code != 0) == bool(crash), done.stderr
    assert cli("-p", "write three", *fake(server), "--yes", "-c").code == 0
    assert len(cli.archives()) == 1
    return cli.sessions()[0]


def emptied(p: Path) -> None:
    p.write_bytes(b"")


def head_only(p: Path) -> None:
    p.write_bytes(p.read_bytes().splitlines(keepends=True)[0])


def head_cut_off(p: Path) -> None:
    p.write_bytes(b"".join(p.read_bytes().splitlines(keepends=True)[1:]))


@pytest.mark.parametrize(("damage", "said"), [
    (emptied, ": it is empty; its archive, "),
    (head_only, ": it holds 0 messages, fewer than the "),
    (head_cut_off, ": it does not begin with the record of its last rewrite"),
])
def test_a_session_file_emptied_or_cut_short_names_its_newest_archive(cli, damage, said):
    with FakeOpenAIServer(editor) as server:
        path = compacted(cli, server)
        damage(path)
        run = cli("-p", "what now", *fake(server), "-c")
    assert run.code == 0, run.stderr
    lines = [line for line in run.stderr.splitlines() if f"{path.name}: it " in line]
    assert len(lines) == 1, run.stderr
    assert said in lines[0] and str(cli.archives()[0]) in lines[0], lines[0]
    assert "holds the conversation as its last compaction or rewind found it" in lines[0]


def test_a_whole_session_file_says_nothing(cli):
    with FakeOpenAIServer(editor) as server:
        compacted(cli, server)
        run = cli("-p", "what now", *fake(server), "-c")
    assert run.code == 0 and "holds the conversation as its last compaction" not in run.stderr, run.stderr


def test_a_run_killed_before_the_rewrite_says_nothing(cli):
    with FakeOpenAIServer(editor) as server:
        compacted(cli, server, crash="rewrite.partial:1")
        run = cli("-p", "what now", *fake(server), "-c")
    assert run.code == 0 and "holds the conversation as its last compaction" not in run.stderr, run.stderr
