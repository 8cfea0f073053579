"""A file opened to be read as a session, an archive or a side file never becomes the process's
controlling terminal: a terminal swapped in for the file, opened by a process that leads its session
and has no terminal, would be acquired as its own (Linux does so unless the open says O_NOCTTY),
and a later hang-up of that terminal would signal the agent."""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest

from compact_agent.context.plumbing.regular_file import NotRegular, open_regular


def has_terminal() -> bool:
    """Whether this process has a controlling terminal: /dev/tty opens only then."""
    try:
        os.close(os.open("/dev/tty", os.O_RDONLY))
    except OSError:
        return False
    return True


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="acquiring a terminal by open is Linux's rule")
def test_a_terminal_opened_in_place_of_a_file_is_refused_and_not_acquired() -> None:
    leader, follower = os.openpty()
    path = Path(os.ttyname(follower))
    os.close(follower)
    read, write = os.pipe()
    pid = os.fork()
    if pid == 0:  # the child leads a new session, with no controlling terminal
        code = 1
        try:
            os.setsid()
            try:
                open_regular(path)
            except NotRegular:
                code = 2
            if has_terminal():
                code += 10
        finally:
            os.write(write, bytes([code]))
            os._exit(0)
    os.close(write)
    os.waitpid(pid, 0)
    code = os.read(read, 1)[0]
    os.close(read)
    os.close(leader)
    assert code == 2, {1: "opened as a file", 12: "refused, but the terminal became the child's own"}.get(code, code)
