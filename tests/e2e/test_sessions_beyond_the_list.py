"""A listing of sessions (`compact-agent sessions`, `-r`'s list, `/resume`) shows the newest 20 and
says how many older ones it leaves out, and how to reach them: it stopped at 20 without a word, as
if the directory held no older session."""

from __future__ import annotations

import os
import shutil

from tests.fakes.openai_server import FakeOpenAIServer, Reply
from tests.ui.repl_driver import drive

MORE = "… 3 older sessions not listed (compact-agent sessions --all lists every one; {} opens any)"


def older_copies(tmp_path, n: int) -> None:
    """`n` sessions older than the one there, copies of it under ids of their own."""
    [first] = (tmp_path / "home" / "projects").glob("*/*.jsonl")
    stamp = first.stat().st_mtime
    for i in range(n):
        copy = first.with_name(f"20250101-0000{i:02d}-abcdef.jsonl")
        shutil.copyfile(first, copy)
        os.utime(copy, (stamp - 100 - i, stamp - 100 - i))


async def test_every_listing_says_how_many_older_sessions_it_leaves_out(tmp_path, cli):
    with FakeOpenAIServer(lambda req: Reply.text("ok")) as server:
        await drive(tmp_path, lambda req: Reply.text("ok"), ["the first session\r"], server=server)
        older_copies(tmp_path, 22)  # 23 sessions in all
        listed = cli("sessions")  # in the same project and home as the REPL's
        every = cli("sessions", "--all")
        picked = await drive(tmp_path, lambda req: Reply.text("ok"), ["1\r", "/resume\r"], server=server,
                             pick_session=True)
    rows = listed.stdout.splitlines()
    assert len(rows) == 22 and rows[-2] == MORE.format("-r ID"), listed.stdout  # then the folder they are in
    assert len(every.stdout.splitlines()) == 24 and "not listed" not in every.stdout
    assert MORE.format("-r ID") in picked.out, picked.out
    assert MORE.format("/resume ID") in picked.out, picked.out  # the session it is in is not listed, nor counted


def test_the_help_of_all_says_what_the_listing_leaves_out(cli):
    said = " ".join(cli("sessions", "--help").stdout.split())
    assert "--all List every session (without it: the newest 20)" in said, said
