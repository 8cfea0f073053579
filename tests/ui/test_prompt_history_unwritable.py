"""A prompt history that cannot be written (the sessions folder made read-only while the REPL runs,
a full disk) is said once, in one line, and the REPL goes on. The failed write was raised inside
the prompt's Enter: every line showed prompt_toolkit's 'Unhandled exception in event loop'
traceback and stopped at 'Press ENTER to continue...', and /exit did twice. A write that fails
part of the way takes back what it wrote: the file keeps whole entries."""

from __future__ import annotations

import asyncio
import errno
import os
from pathlib import Path
from typing import Any

import pytest
from prompt_toolkit.input import create_pipe_input
from prompt_toolkit.output import DummyOutput

from compact_agent.session import prompt_history
from compact_agent.ui.prompt_input import make_prompt
from tests.fakes.openai_server import Reply, message_text

from .repl_driver import drive

UP = "\x1b[A"
SAID = "the prompt history could not be written"


def unwritable(monkeypatch: pytest.MonkeyPatch, error: int = errno.EROFS) -> list[bool]:
    """While its one item is True, opening the history to append fails as on a read-only folder."""
    real, broken = prompt_history._locked, [True]

    def locked(path: Path, flags: int) -> int:
        if broken[0]:
            raise OSError(error, os.strerror(error), str(path))
        return real(path, flags)

    monkeypatch.setattr(prompt_history, "_locked", locked)
    return broken


async def test_the_repl_goes_on_and_says_it_once(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                 capfd: pytest.CaptureFixture[str]) -> None:
    unwritable(monkeypatch)
    run = await asyncio.wait_for(drive(tmp_path, lambda req: Reply.text("ANSWERED"),
                                       ["first line\r", "second line\r", f"{UP}{UP}\r", "/exit\r"]), 60)
    err = capfd.readouterr().err
    users = [message_text(m) for m in run.server.requests[-1].messages if m.get("role") == "user"]
    assert users == ["first line", "second line", "first line"]  # up-arrow: this run's lines, kept in memory
    assert err.count(SAID) == 1 and "Read-only file system" in err and "prompt_history" in err
    assert "Traceback" not in err + run.out and "Unhandled exception" not in err + run.out
    assert "Press ENTER" not in err + run.out


async def prompt(inp: Any, p: Any, keys: str) -> str:
    inp.send_text(keys)
    return str(await asyncio.wait_for(p.prompt_async("› "), 10))


async def test_said_again_after_the_history_was_written_again(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                              capsys: pytest.CaptureFixture[str]) -> None:
    broken = unwritable(monkeypatch, errno.ENOSPC)
    with create_pipe_input() as inp:
        p = make_prompt(tmp_path / "root", [], tmp_path, input=inp, output=DummyOutput())
        assert await prompt(inp, p, "one\r") == "one"
        assert await prompt(inp, p, "two\r") == "two"
        assert capsys.readouterr().err.count(SAID) == 1  # once, not per line
        broken[0] = False
        assert await prompt(inp, p, "three\r") == "three"
        assert not capsys.readouterr().err
        broken[0] = True
        assert await prompt(inp, p, "four\r") == "four"
        assert capsys.readouterr().err.count("No space left on device") == 1  # a new failure, said
    assert "+three" in (tmp_path / "root" / prompt_history.NAME).read_text()


def test_a_write_that_fails_half_way_leaves_no_torn_entry(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = tmp_path / prompt_history.NAME
    prompt_history.append(path, "kept whole", "s1")
    before = path.read_bytes()
    real = prompt_history._write_all

    def half(fd: int, data: bytes) -> None:
        real(fd, data[: len(data) // 2])
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(prompt_history, "_write_all", half)
    with pytest.raises(OSError):
        prompt_history.append(path, "a line much longer than half of its entry", "s1")
    assert path.read_bytes() == before
    monkeypatch.setattr(prompt_history, "_write_all", real)
    prompt_history.append(path, "after", "s1")
    assert path.read_text().count("+") == 2 and "much longer" not in path.read_text()
