"""`/rewind N` to a turn before a compaction gives its prompt back whole, from the transcript that
compaction archived. A prompt sent with `-p` has no record of how the REPL showed it (sent_record.py
is the REPL's), and the conversation the checkpoint indexes was taken for unknown: the checkpoint's
preview came back, its first 120 characters and `…`, and Enter sent that as the message (the session
then kept it so), though the archive named on the line held the prompt whole."""

from __future__ import annotations

import asyncio
from pathlib import Path

from tests.e2e.conftest import Cli
from tests.e2e.test_rewind_after_compaction import editor, fake
from tests.fakes.openai_server import FakeOpenAIServer

from .repl_driver import drive

LONG = "write two " + " ".join(f"word{i}" for i in range(150)) + " END"


async def test_a_long_prompt_sent_before_a_compaction_comes_back_whole(tmp_path: Path, zygote) -> None:
    cli = Cli(home=tmp_path / "home", cwd=tmp_path / "project", zygote=zygote)
    cli.cwd.mkdir()
    (cli.cwd / "hello.txt").write_text("zero\n")
    typed: list[str] = []

    def at_prompt() -> None:
        from compact_agent.ui.command_registry import current_repl

        keys = getattr(current_repl(), "keys", None)
        typed.append(keys.typed if keys is not None else "")

    with FakeOpenAIServer(editor) as server:
        for args in (("-p", "write one", "--yes"), ("-p", LONG, "--yes", "-c"), ("-p", "/compact", "-c")):
            done = cli(*args, *fake(server))
            assert done.code == 0, done.stderr
        assert cli.archives(), "the compaction archived no transcript"
        run = await asyncio.wait_for(drive(tmp_path, editor, ["/rewind 1\r", "y", "\r"], server=server,
                                           keys_answer=True, permission_mode="yes", continue_last=True,
                                           at_prompt=at_prompt), 90)
    out = " ".join(run.out.split())
    assert "rewound; restored 1 file; the prompt is back in the input to edit" in out, run.out
    assert "from the transcript archived before the compaction" in out
    # Back behind a paste's placeholder (it is as long as a paste), which Enter sends whole.
    assert [t for t in typed if t] == [f"[pasted {len(LONG):,} characters]"], typed
    assert server.requests[-1].last_user_text() == LONG  # Enter sent the prompt as it was first sent
    assert (cli.cwd / "hello.txt").read_text() == "two\n"
