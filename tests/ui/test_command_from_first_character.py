"""A message that began with indentation and then `/` or `!` ran as a command: the REPL stripped the
line before it looked, so `  /usr/lib/libx.so: not found, why?` was refused as an unknown command and a
pasted block starting `    !important` ran a shell command. A command is `/` or `!` as the line's
very first character; anything else is a message, sent as written."""

from __future__ import annotations

from pathlib import Path

from compact_agent.ui.command_registry import is_command
from tests.fakes.openai_server import Reply

from .repl_driver import drive, pasted


async def test_an_indented_slash_or_bang_goes_to_the_model(tmp_path: Path) -> None:
    run = await drive(tmp_path, lambda req: Reply.text("ok"),
                      ["  /usr/lib/libx.so: not found, why?\r", f"{pasted('    !important = 1' + chr(10) + '    x = 2')}\r"])
    assert run.prompts == ["  /usr/lib/libx.so: not found, why?", "    !important = 1\n    x = 2"], run.prompts
    assert "unknown command" not in run.out, run.out


async def test_a_slash_at_the_start_is_still_a_command(tmp_path: Path) -> None:
    run = await drive(tmp_path, lambda req: Reply.text("ok"), ["/status\r", "hello\r"])
    assert run.prompts == ["hello"], run.prompts
    assert "context" in run.out, run.out


def test_what_counts_as_a_command() -> None:
    assert is_command("/help") and is_command("!ls")
    assert not is_command(" /help") and not is_command("\t!ls") and not is_command("[pasted 12 lines] /x")
    assert not is_command("") and not is_command("hello /help")
