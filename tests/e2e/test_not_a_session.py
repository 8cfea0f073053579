"""What is under a session's name but is no session: a folder named `ID.jsonl` given to `-r ID`
is one line (it was a warning that the prompt could not be saved, then `Is a directory`), and so
is a file of random bytes given to `-c` or `-r ID`, which is left as it is: `-c` cut its last line
off into `set-aside/torn-line-*.bin`, then appended the new conversation to it."""

from __future__ import annotations

import os
import random

import pytest

from tests.fakes.openai_server import FakeOpenAIServer, Reply

from .test_print_prompt_saved_early import fake

SESSION_ID = "20991231-000000-abcdef"


def test_a_folder_named_like_a_session_is_one_line(cli):
    with FakeOpenAIServer(lambda req: Reply.text("ok")) as server:
        assert cli("-p", "hi", *fake(server)).code == 0
        [first] = cli.sessions()
        folder = first.parent / f"{SESSION_ID}.jsonl"
        folder.mkdir()
        res = cli("-r", SESSION_ID, "-p", "hello", *fake(server))
        assert len(server.requests) == 1  # nothing was sent
    assert res.code == 2 and res.stderr.count("\n") == 1, res.stderr
    assert res.stderr == (f"compact-agent: session {SESSION_ID} cannot be opened: {folder} is a directory, not a "
                          "session file (compact-agent sessions lists the sessions)\n")
    assert folder.is_dir() and not any(folder.iterdir())


@pytest.mark.parametrize("how", ["-c", "-r"])
def test_random_bytes_under_a_session_name_are_one_line_and_never_written(cli, how):
    rng = random.Random(7)
    with FakeOpenAIServer(lambda req: Reply.text("ok")) as server:
        assert cli("-p", "hi", *fake(server)).code == 0
        [path] = cli.sessions()
        junk = bytes(rng.randrange(256) for _ in range(3000)).replace(b'{"', b"x")
        path.write_bytes(junk)
        side = sorted(p.relative_to(path.parent) for p in path.parent.rglob("*"))
        res = cli(*(["-c"] if how == "-c" else ["-r", path.stem]), "-p", "hello", *fake(server))
        assert len(server.requests) == 1  # nothing was sent
    assert res.code == 2 and res.stdout == "", res.stderr
    assert res.stderr == (f"compact-agent: session {path.stem} cannot be opened: {path} is not a session file (no "
                          "line of it is a session entry); it is left as it is (compact-agent sessions lists the "
                          "sessions)\n")
    assert path.read_bytes() == junk
    assert sorted(p.relative_to(path.parent) for p in path.parent.rglob("*")) == side  # nothing set aside


def test_continue_passes_over_a_newer_file_that_is_no_session(cli):
    """`-c` refused when the newest file under a session's name was another program's, though an
    older session was there to continue: it goes on with the newest session and says what it
    passed over; the other file is left as it is."""
    with FakeOpenAIServer(lambda req: Reply.text("ok")) as server:
        assert cli("-p", "remember the word tangerine", *fake(server)).code == 0
        [session] = cli.sessions()
        junk = session.parent / f"{SESSION_ID}.jsonl"
        junk.write_bytes(b"not a session\n")
        os.utime(junk, (session.stat().st_mtime + 60,) * 2)  # newer than the session
        res = cli("-c", "-p", "which word?", *fake(server))
        assert res.code == 0, res.stderr
        assert len(server.requests) == 2
        assert "tangerine" in str(server.requests[1].body)  # the session went on
    assert res.stderr == (f"compact-agent: note: continuing session {session.stem}; passed over 1 newer file that "
                          "is not a session (compact-agent sessions lists them)\n")
    assert junk.read_bytes() == b"not a session\n"
