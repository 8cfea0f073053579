"""`/rewind` after a compaction whose run was killed between its rewrite and the checkpoints' save.

A compaction archives the conversation, renames the rewritten session file into place, and then
saves the checkpoint list moved into the archive (`Checkpoints.compacted`). A kill in between (at
the rename, or at the list's own write) left a list whose checkpoints still indexed the conversation
as it was: the next run took the compaction for a branch, dropped every checkpoint but the first,
and said "the conversation was changed from an earlier point (an answer asked for again, or a
branch)". The checkpoints are now put into the archive the compaction message names, where their
message still is at its place, as the save would have: nothing is dropped, nothing is said, and a
rewind to one puts the files and the conversation back from that archive."""

from __future__ import annotations

import pytest

from tests.fakes.openai_server import FakeOpenAIServer, message_text

from .test_rewind_after_compaction import editor, fake


@pytest.mark.parametrize("point", ["rewrite.renamed:1", "write.partial:1"])
def test_a_kill_right_after_the_rewrite_keeps_the_checkpoints(cli, point):
    hello = cli.cwd / "hello.txt"
    hello.write_text("zero\n")
    with FakeOpenAIServer(editor) as server:
        for n, word in enumerate(("one", "two", "three")):
            run = cli("-p", f"write {word}", *fake(server), "--yes", *(["-c"] if n else []))
            assert run.code == 0, run.stderr
        killed = cli("-p", "/compact", *fake(server), "-c", env={"COMPACT_AGENT_CRASH_AT": point})
        assert killed.code != 0, killed.stdout + killed.stderr
        assert len(cli.archives()) == 1
        assert '"strategy"' in cli.sessions()[0].read_text().splitlines()[0]  # the rewrite is in place
        listed = cli("-p", "/rewind", *fake(server), "-c")
        rewound = cli("-p", "/rewind 1", *fake(server), "-c", "--yes")
        after = cli("-p", "what now", *fake(server), "-c")
    assert listed.code == 0, listed.stderr
    assert "changed from an earlier point" not in listed.stderr + listed.stdout, listed.stderr
    out = " ".join(listed.stdout.split())
    assert all(f"write {w}" in out for w in ("one", "two", "three")) and "before a compaction" in out, out
    assert rewound.code == 0, rewound.stderr
    assert hello.read_text() == "one\n"
    said = " ".join(rewound.stdout.split())
    assert "from the transcript archived before the compaction" in said, said
    users = [message_text(m) for m in server.requests[-1].messages if m.get("role") == "user"]
    assert users == ["write one", "what now"], users
    assert after.code == 0 and after.stdout.startswith("SAW: write one | what now"), after.stdout
