"""Ctrl-C while a slash command worked (/diff waiting on git, /resume reading a long session,
/memory on its editor) ended the whole REPL with `compact-agent: interrupted`, exit 130: only a
turn, a `!cmd`, /compact and a /model switch were stoppable. Ctrl-C now stops the command
(`interrupted`) and the REPL goes on; within a command that runs a turn, it stops the turn first.
A command's yes/no question (`/rewind N`) leaves Ctrl-C the command's: it took the command's
handler away, so a Ctrl-C after the answer stopped nothing, and a handler that did nothing stayed
on SIGINT after the command (a later `asyncio.run` then took no Ctrl-C either)."""

from __future__ import annotations

import asyncio
import os
import signal
from pathlib import Path
from typing import Any

import pytest

from compact_agent.ui.command_registry import COMMANDS, command, current_repl
from tests.fakes.openai_server import Reply

from .repl_driver import drive


@pytest.fixture
def stuck_command():
    """`/stuck`: a command that is sent SIGINT (as the terminal sends it for Ctrl-C) while it waits
    for something that never comes."""
    reached: list[str] = []

    @command("stuck", "waits for ever")
    async def _stuck(s: Any, args: str, c: Any) -> None:
        reached.append("waiting")
        os.kill(os.getpid(), signal.SIGINT)
        await asyncio.Event().wait()
        reached.append("never")

    yield reached
    COMMANDS.pop("stuck", None)


@pytest.fixture
def asking_command():
    """`/ask`: a command that asks a yes/no question, then is sent SIGINT while it waits for ever."""
    reached: list[Any] = []

    @command("ask", "asks, then waits for ever")
    async def _ask(s: Any, args: str, c: Any) -> None:
        repl = current_repl()
        assert repl is not None
        reached.append(await repl.confirm("go on? [y/N] "))
        os.kill(os.getpid(), signal.SIGINT)
        await asyncio.Event().wait()
        reached.append("never")

    yield reached
    COMMANDS.pop("ask", None)


async def test_ctrl_c_after_a_question_stops_the_command(tmp_path: Path, asking_command: list[Any]) -> None:
    """The SIGINT after the answer stops the command (it waited for ever: the bound only keeps a
    failing run from hanging), and nothing of the question or the command stays on SIGINT."""
    run = await asyncio.wait_for(drive(tmp_path, lambda req: Reply.text("ok"), ["/ask\r", "y", "after\r"],
                                       keys_answer=True), 60)
    assert asking_command == [True]
    assert "interrupted" in run.out and run.prompts == ["after"], run.out
    assert signal.getsignal(signal.SIGINT) is signal.default_int_handler


async def test_ctrl_c_stops_a_command_not_the_repl(tmp_path: Path, stuck_command: list[str]) -> None:
    run = await drive(tmp_path, lambda req: Reply.text("ok"), ["hello\r", "/stuck\r", "after\r"])
    assert stuck_command == ["waiting"]
    assert run.out.count("interrupted") == 1, run.out
    assert run.prompts == ["hello", "after"]  # the REPL went on


async def test_after_a_command_ctrl_c_is_the_prompts_again(tmp_path: Path, stuck_command: list[str]) -> None:
    """Once the command is over nothing of it stays on SIGINT: a later one is the REPL's own."""
    loop = asyncio.get_running_loop()
    run = await drive(tmp_path, lambda req: Reply.text("ok"), ["/stuck\r", "after\r"])
    assert run.prompts == ["after"]
    assert not loop.remove_signal_handler(signal.SIGINT)  # none left installed


async def test_ctrl_c_during_memory_waits_for_the_editor_to_end(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The editor /memory N opens has the terminal: stopped by Ctrl-C (which the terminal sends to
    the REPL too), the command waits for the editor to end before the prompt comes back, so the two
    never draw on the terminal at once."""
    editor = tmp_path / "editor.sh"  # sends the REPL the Ctrl-C, ignores its own, then saves
    editor.write_text("#!/bin/sh\ntrap '' INT\nkill -INT $PPID\nsleep 0.5\necho saved >> \"$1\"\n")
    editor.chmod(0o755)
    monkeypatch.delenv("VISUAL", raising=False)
    monkeypatch.setenv("EDITOR", str(editor))
    (tmp_path / "project").mkdir()
    agents = tmp_path / "project" / "AGENTS.md"
    agents.write_text("# notes\n")
    seen: list[str] = []
    run = await drive(tmp_path, lambda req: Reply.text("ok"), ["/memory 1\r", "after\r"],
                      at_prompt=lambda: seen.append(agents.read_text()))
    assert "interrupted" in run.out and run.prompts == ["after"], run.out
    assert seen[1].endswith("saved\n")  # the editor had ended when the next prompt came
