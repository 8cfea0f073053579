"""An edit of a FIFO (or a socket, a device) says what it is: it said 'File not found: fifo. Did you
mean: fifo, fifo.png?', offering the very name it could not find."""

from __future__ import annotations

import os
from pathlib import Path

from .test_tools import call, make_env


async def test_an_edit_of_a_fifo_says_it_is_no_regular_file(work: Path) -> None:
    os.mkfifo(work / "fifo")
    (work / "fifo.png").write_bytes(b"\x89PNG")
    env = make_env(work)
    said = await call(env, "edit_file", path="fifo", old_string="a", new_string="b")
    assert said == "fifo is not a regular file; it cannot be edited.", said
    assert "did you mean" in (await call(env, "edit_file", path="fifoo", old_string="a", new_string="b")).lower()
