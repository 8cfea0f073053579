"""What the REPL itself writes is private: the prompt history holds everything the user typed."""

from __future__ import annotations

import os
import stat
from pathlib import Path

from prompt_toolkit.application import create_app_session
from prompt_toolkit.input import create_pipe_input
from prompt_toolkit.output import DummyOutput

from compact_agent.agent.run.options import SessionOptions
from compact_agent.ui.repl import run_repl


async def repl(opts: SessionOptions, *lines: str) -> None:
    """The real REPL, reading each of `lines` as keystrokes when the prompt waits for it (lines
    written at once are a paste: paste_keys.py), then Ctrl-D."""
    todo = list(lines)
    with create_pipe_input() as inp, create_app_session(input=inp, output=DummyOutput()):
        await run_repl(opts, inp=inp, output=DummyOutput(),
                       before_prompt=lambda: inp.send_text(todo.pop(0) if todo else "\x04"))


async def test_prompt_history_and_store_folders_are_private(tmp_path: Path) -> None:
    os.umask(0o022)  # the usual umask
    cwd, home = tmp_path / "project", tmp_path / "data" / "compact-agent"
    cwd.mkdir()
    opts = SessionOptions(cwd=cwd, model="fake-model", base_url="http://127.0.0.1:9/v1", api_key="k", home=home)
    await repl(opts, "/help\n", "/exit\n")
    history = next(home.rglob("prompt_history"))
    assert "/help" in history.read_text()
    assert stat.S_IMODE(history.stat().st_mode) == 0o600
    for d in (tmp_path / "data", home, home / "projects", history.parent.parent, history.parent):
        assert stat.S_IMODE(d.stat().st_mode) == 0o700, d


def test_ctrl_c_at_the_permission_prompt_interrupts_the_turn() -> None:
    """The event loop's SIGINT handler cannot run while the prompt blocks it; Ctrl-C there must
    still interrupt (as a cancellation of the turn, not an exit of the REPL)."""
    import asyncio
    import signal

    import pytest

    from compact_agent.ui.repl import _ask

    class Console:
        width = 80  # the question lays the command out for it

        def print(self, *a: object, **k: object) -> None:
            pass

        def input(self, prompt: str, **k: object) -> str:
            os.kill(os.getpid(), signal.SIGINT)  # the user presses Ctrl-C while asked
            return ""

    noop = signal.signal(signal.SIGINT, lambda *a: None)  # as asyncio's handler leaves it
    try:
        with pytest.raises(asyncio.CancelledError):
            _ask(Console())("bash", "rm -rf build")  # type: ignore[arg-type]
        assert signal.getsignal(signal.SIGINT) is not signal.default_int_handler  # put back
    finally:
        signal.signal(signal.SIGINT, noop)
