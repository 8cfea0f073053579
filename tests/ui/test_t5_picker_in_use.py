"""`-r`'s list marks a session another compact-agent process has open, and picking it is refused
in one line, as `/resume` refuses it, and the question asked again: it was listed unmarked, and
picking it ended the command with exit 1 after a note on the options it would have run with."""

from __future__ import annotations

import contextlib
import os
from collections.abc import AsyncIterator
from pathlib import Path

from compact_agent.agent.run.options import session_root
from compact_agent.session import locks
from compact_agent.ui.session_picker import _words
from tests.fakes.openai_server import FakeOpenAIServer

from .repl_driver import drive
from .test_resume_keeps_options import answer, command_line, server, sessions

__all__ = ["server"]  # the fixture

@contextlib.asynccontextmanager
async def open_elsewhere(tmp_path: Path, server: FakeOpenAIServer) -> AsyncIterator[tuple[str, str]]:
    """Two sessions, the newer one (number 1 in the list) held as another process holds it: its lock
    taken on a descriptor of its own, which the picker's check cannot take either."""
    first, second = await sessions(tmp_path, server, {})
    root = session_root((tmp_path / "project").resolve(), tmp_path / "home")
    fd = locks.hold(root / second, second, root)
    assert fd is not None
    try:
        yield first, second
    finally:
        os.close(fd)


def marked(out: str, session_id: str) -> bool:
    return any(session_id in line and "(open in another run)" in line for line in out.splitlines())


async def test_a_session_open_elsewhere_is_marked_and_picking_it_asks_again(
        tmp_path: Path, server: FakeOpenAIServer) -> None:
    async with open_elsewhere(tmp_path, server) as (first, second):
        run = await drive(tmp_path, answer, ["1\r", "2\r", "still here\r"], server=server, pick_session=True,
                          options_for=command_line(tmp_path, server).for_session)
    assert marked(run.out, second) and not marked(run.out, first), run.out
    flat = " ".join(run.out.split())
    assert (f"session {second} is in use by another compact-agent process (wait for it to finish, then pick it "
            "again); give another number, n for a new session, or Ctrl-D to quit") in flat, run.out
    assert f"session {first}" in run.out.split("Ctrl-D to quit")[-1], run.out  # the banner of the one picked next
    assert run.prompts[-1] == "still here", run.out


async def test_enter_picks_the_first_session_not_open_elsewhere(
        tmp_path: Path, server: FakeOpenAIServer) -> None:
    async with open_elsewhere(tmp_path, server) as (first, _):
        run = await drive(tmp_path, answer, ["\r", "go on\r"], server=server, pick_session=True,
                          options_for=command_line(tmp_path, server).for_session)
    assert f"session {first}" in run.out, run.out  # number 2, the first no other process has open
    assert _words(2, 2)[0] == "resume which? (number, Enter for 2, Ctrl-D to quit) "  # as the question says
    assert run.prompts[-1] == "go on", run.out


async def test_n_starts_a_new_session(tmp_path: Path, server: FakeOpenAIServer) -> None:
    async with open_elsewhere(tmp_path, server) as (first, second):
        run = await drive(tmp_path, answer, ["1\r", "n\r", "fresh\r"], server=server, pick_session=True,
                          options_for=command_line(tmp_path, server).for_session)
    banner = run.out.split("starting a new session")[-1]
    assert "session " in banner and first not in banner and second not in banner, run.out
    assert run.prompts[-1] == "fresh", run.out
