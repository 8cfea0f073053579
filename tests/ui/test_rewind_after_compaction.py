"""`/rewind` in the REPL after `/compact`: the turns before the compaction are listed, and a rewind
to one asks in words that say the compaction goes too, puts the file back and the conversation as
it was before that message (from the archive), and gives the prompt back to edit. The compaction
used to drop every checkpoint: "no checkpoints: a compaction dropped them"."""

from __future__ import annotations

import asyncio

from tests.e2e.test_rewind_after_compaction import editor

from .repl_driver import drive


async def test_rewind_in_the_repl_after_compact(tmp_path):
    project = tmp_path / "project"
    project.mkdir()
    (project / "hello.txt").write_text("zero\n")
    keys = ["write one\r", "write two\r", "/compact\r", "/rewind\r", "/rewind 1\r", "y", "\x15what now\r"]
    run = await asyncio.wait_for(drive(tmp_path, editor, keys, keys_answer=True, permission_mode="yes"), 90)
    out = " ".join(run.out.split())
    assert "write one (1 file to restore; before a compaction)" in out, run.out
    assert "write two (1 file to restore; before a compaction)" in out
    assert ("rewind to before “write two”? the files changed since go back, and the conversation as it was before "
            "it (a compaction since is undone); the plan of those turns too [y/N] y") in out
    assert ("rewound; restored 1 file; the prompt is back in the input to edit; the conversation is back to before "
            "that message, from the transcript archived before the compaction (the compaction is undone):") in out
    assert (project / "hello.txt").read_text() == "one\n"
    assert run.server.requests[-1].last_user_text() == "what now"
    assert "SAW: write one | what now" in out  # no summary, no "write two": the conversation before it
