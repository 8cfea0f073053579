"""Lines typed while a slash command works (/diff waiting on git, /resume reading a session) or
before the first prompt is up were left unread in the terminal: the next prompt read them in one
go, took them for a paste and joined them into one line. They are read as during a turn: each line
ended with Enter is sent in order once the command is over (or once the prompt is up), the rest
waits in the prompt; more than a person types in the time is still a paste."""

from __future__ import annotations

import asyncio
import select
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from compact_agent.ui.command_registry import COMMANDS, command, current_repl
from tests.fakes.openai_server import Reply

from .repl_driver import drive
from .test_paste_as_keys_during_turn import LOG

#: Last, at an empty prompt: it says "press Ctrl-C again"; on what the prompt still holds (lines
#: left for it, joined), it takes that away and nothing is sent.
CTRL_C = "\x03"


def echo(req: Any) -> Reply:
    return Reply.text(f"ANSWER to {req.last_user_text()}")


async def read_by_the_repl(inp: Any) -> None:
    """Turns of the loop until the REPL's reader took what the terminal held (a bounded number: a
    REPL that reads nothing during the command leaves it there)."""
    for _ in range(200):
        if not select.select([inp.fileno()], [], [], 0)[0]:
            return
        await asyncio.sleep(0)


@pytest.fixture
def busy() -> Iterator[list[Any]]:
    """`/busy`: a command that works while the user types each of `typing` (a read of its own, 0.3 s
    apart by the REPL's clock), then, if `blocked`, keeps the loop busy for 2 s while more is typed."""
    plan: list[Any] = []

    @command("busy", "works a while")
    async def _busy(s: Any, args: str, c: Any) -> None:
        typing, blocked, inp = plan
        clock = current_repl().clock  # type: ignore[union-attr]  # the typist's
        for keys in typing:
            clock.now += 0.3
            inp.send_text(keys)
            await read_by_the_repl(inp)
        if blocked:
            clock.now += 2.0  # the loop busy: nothing read meanwhile
            inp.send_text(blocked)
        c.print("busy done")

    yield plan
    COMMANDS.pop("busy", None)


async def run_busy(tmp_path: Path, plan: list[Any], typing: list[str], blocked: str, then: list[list[str]]) -> Any:
    class Late(list[Any]):  # the pipe, known once drive made it
        def append(self, inp: Any) -> None:
            super().append(inp)
            plan[:] = [typing, blocked, inp]

    pipe = Late()
    return await drive(tmp_path, echo, [["/busy\r"], *then, CTRL_C], pipe=pipe)


async def test_lines_typed_while_a_command_works_are_sent_one_by_one(tmp_path: Path, busy: list[Any]) -> None:
    run = await run_busy(tmp_path, busy, ["one\r", "two\r"], "", [])
    assert run.prompts == ["one", "two"], run.prompts
    assert run.out.index("busy done") < run.out.index("ANSWER to one")  # sent once the command is over


async def test_lines_typed_while_a_command_keeps_the_loop_busy_are_lines(tmp_path: Path, busy: list[Any]) -> None:
    run = await run_busy(tmp_path, busy, [], "one\rtwo\r", [])
    assert run.prompts == ["one", "two"], run.prompts


async def test_a_line_not_ended_waits_in_the_prompt(tmp_path: Path, busy: list[Any]) -> None:
    run = await run_busy(tmp_path, busy, ["one\r", "half"], "", [[" done\r"]])
    assert run.prompts == ["one", "half done"], run.prompts


async def test_a_paste_during_a_command_is_still_one(tmp_path: Path, busy: list[Any]) -> None:
    run = await run_busy(tmp_path, busy, [], LOG.replace("\n", "\r"), [["\r"]])  # far more than 2 s of typing
    assert run.prompts == [LOG.rstrip("\n")], run.prompts


async def test_lines_typed_before_the_first_prompt_are_lines(tmp_path: Path) -> None:
    run = await drive(tmp_path, echo, [[CTRL_C]], typed_early="one\rtwo\r", started=98.0)  # 2 s starting
    assert run.prompts == ["one", "two"], run.prompts


async def test_an_esc_typed_before_the_first_prompt_loses_nothing(tmp_path: Path) -> None:
    """Read as a turn's keys, an Esc among them would stop the turn and drop them; no turn runs yet."""
    run = await drive(tmp_path, echo, [[CTRL_C]], typed_early="one\r\x1btwo\r", started=98.0)
    assert run.prompts == ["one", "two"], run.prompts


async def test_a_paste_before_the_first_prompt_is_still_one(tmp_path: Path) -> None:
    run = await drive(tmp_path, echo, [["\r"], CTRL_C], typed_early=LOG.replace("\n", "\r"), started=98.0)
    assert run.prompts == [LOG.rstrip("\n")], run.prompts


class Pressed(list[str]):
    """The keys `/stuck` presses, and `waiting`: set once it pressed them and the REPL read them."""

    def __init__(self) -> None:
        super().__init__()
        self.waiting = asyncio.Event()


@pytest.fixture
def stuck() -> Iterator[Pressed]:
    """`/stuck`: a command that waits for ever while the user presses `pressed`."""
    pressed = Pressed()

    @command("stuck", "waits for ever")
    async def _stuck(s: Any, args: str, c: Any) -> None:
        inp = current_repl().inp  # type: ignore[union-attr]
        inp.send_text(pressed.pop(0))
        await read_by_the_repl(inp)
        c.print("still waiting")
        pressed.waiting.set()
        await asyncio.Event().wait()

    yield pressed
    COMMANDS.pop("stuck", None)


async def test_ctrl_c_read_as_a_key_stops_the_command(tmp_path: Path, stuck: Pressed) -> None:
    """Its keys read in raw mode, the terminal sends no SIGINT for Ctrl-C: the reader stops it."""
    stuck[:] = ["\x03"]
    run = await drive(tmp_path, echo, ["/stuck\r", "after\r"])
    assert "interrupted" in run.out and run.prompts == ["after"], run.out


async def test_esc_does_not_stop_a_command(tmp_path: Path, stuck: Pressed) -> None:
    stuck[:] = ["\x1b"]
    pipe: list[Any] = []
    task = asyncio.ensure_future(drive(tmp_path, echo, ["/stuck\r"], pipe=pipe))
    # Until the command pressed Esc and the REPL read it: the session is built with threads of its
    # own (its imports, asking a local server for its window), so no count of the loop's turns
    # says when the command runs; a Ctrl-C sent before it reached the prompt, and the run went on.
    waiting = asyncio.ensure_future(stuck.waiting.wait())
    await asyncio.wait([task, waiting], timeout=60, return_when=asyncio.FIRST_COMPLETED)
    waiting.cancel()
    assert stuck.waiting.is_set() and not task.done(), task
    for _ in range(50):  # the Esc read, and some turns of the loop after it
        await asyncio.sleep(0)
    assert not task.done()
    pipe[0].send_text("\x03")
    run = await task
    assert "still waiting" in run.out and "interrupted" in run.out
