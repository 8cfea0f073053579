"""A session another compact-agent process has open (a REPL left open on it) is marked in
`compact-agent sessions`, and `-c` of it is refused in one line that names that process, before any
note on what the session would run with.

Before, the listing showed it as any other, and `-c` picked it, said `note: using the endpoint this
session remembers: …` and only then failed with `is in use by another compact-agent process`."""

from __future__ import annotations

import os
import subprocess
import sys

from compact_agent.session import locks
from tests.fakes.openai_server import FakeOpenAIServer, Reply

from .test_print_cli import fake

MARK = "(open in another run)"


def test_a_session_open_elsewhere_is_marked_and_continue_names_who_holds_it(cli):
    with FakeOpenAIServer(lambda req: Reply.text("answer")) as server:
        assert cli("-p", "first question", *fake(server)).code == 0
        [path] = cli.sessions()
        fd = locks.hold(path.parent / path.stem, path.stem, path.parent)  # as a REPL open on it holds it
        assert fd is not None
        try:
            listed = cli("sessions")
            refused = cli("-c", "-p", "hi", "--api-key", "k")  # the endpoint: the one the session remembers
            by_id = cli("-r", path.stem, "-p", "hi", "--api-key", "k")
        finally:
            locks.release(fd)
        free = cli("sessions")
        went_on = cli("-c", "-p", "hi", "--api-key", "k")
    [row, _] = listed.stdout.splitlines()  # and the folder it is kept in
    assert path.stem in row and MARK in row, listed.stdout
    busy = (f"compact-agent: session {path.stem} is in use by another compact-agent process, pid {os.getpid()} "
            "(wait for it to finish, or leave it: /exit in its REPL; or start a new session without "
            "--continue/--resume)\n")
    assert refused.code == 1 and refused.stderr == busy, refused.stderr  # no note before it
    assert by_id.code == 1 and by_id.stderr == busy, by_id.stderr
    assert MARK not in free.stdout, free.stdout
    assert went_on.code == 0 and went_on.stdout.strip() == "answer", went_on
    assert "using the endpoint this session remembers" in went_on.stderr  # the note, for a run that goes on


def test_a_process_that_ended_is_not_named(cli):
    """The lock file names the process that last took it: one that ended since is not the holder."""
    with FakeOpenAIServer(lambda req: Reply.text("answer")) as server:
        assert cli("-p", "first question", *fake(server)).code == 0
    [path] = cli.sessions()
    ended = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"], capture_output=True, text=True)
    fd = locks.hold(path.parent / path.stem, path.stem, path.parent)
    assert fd is not None
    try:
        os.ftruncate(fd, 0)
        os.pwrite(fd, ended.stdout.strip().encode(), 0)
        refused = cli("-c", "-p", "hi", "--api-key", "k")
    finally:
        locks.release(fd)
    assert refused.code == 1 and refused.stderr == (
        f"compact-agent: session {path.stem} is in use by another compact-agent process (wait for it to finish, "
        "or start a new session without --continue/--resume)\n"), refused.stderr
