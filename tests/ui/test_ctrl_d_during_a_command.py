"""Ctrl-D pressed while a slash command worked (/diff waiting on git, /resume reading a session)
was lost: the REPL went on as if it had never been pressed. It does what it does during a turn: a
line says so at once, the lines typed ahead with Enter before it are sent first, then the REPL
leaves; typing after it keeps the REPL open."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from compact_agent.ui.command_registry import COMMANDS, command, current_repl
from compact_agent.ui.interrupt_keys import LEAVING, LEAVING_COMMAND, STAYING
from tests.fakes.openai_server import Reply

from .repl_driver import drive
from .test_typed_during_a_command import read_by_the_repl


@pytest.fixture
def pressing() -> Iterator[list[str]]:
    """`/busy`: a command during which the user presses each of the keys held (a read of its own)."""
    pressed: list[str] = []

    @command("busy", "works a while")
    async def _busy(s: Any, args: str, c: Any) -> None:
        inp = current_repl().inp  # type: ignore[union-attr]
        for keys in pressed:
            inp.send_text(keys)
            await read_by_the_repl(inp)
        c.print("busy done")

    yield pressed
    COMMANDS.pop("busy", None)


def echo(req: Any) -> Reply:
    return Reply.text(f"ANSWER to {req.last_user_text()}")


async def test_ctrl_d_during_a_command_leaves_once_it_is_over(tmp_path: Path, pressing: list[str]) -> None:
    pressing[:] = ["\x04"]
    run = await drive(tmp_path, echo, ["/busy\r", "never\r"])
    assert run.prompts == [], run.prompts  # "never", typed at a next prompt, never went
    assert run.out.count(LEAVING_COMMAND) == 1 and LEAVING not in run.out
    assert run.out.index(LEAVING_COMMAND) < run.out.index("busy done")  # said at once


async def test_lines_typed_before_ctrl_d_are_sent_first(tmp_path: Path, pressing: list[str]) -> None:
    pressing[:] = ["next one\r", "\x04"]
    run = await drive(tmp_path, echo, ["/busy\r", "never\r"])
    assert run.prompts == ["next one"], run.prompts


async def test_typing_after_ctrl_d_keeps_the_repl_open(tmp_path: Path, pressing: list[str]) -> None:
    pressing[:] = ["\x04", "then"]
    run = await drive(tmp_path, echo, ["/busy\r", " this\r"])
    assert run.prompts == ["then this"], run.prompts
    assert run.out.count(LEAVING_COMMAND) == 1 and run.out.count(STAYING) == 1
