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


async def test_a_line_that_begins_with_a_path_goes_to_the_model_as_print_mode_sends_it(tmp_path: Path) -> None:
    """`/usr/lib/libx.so: not found, why?` pasted at the prompt was `unknown command /usr/lib/libx.so:`,
    while `-p` sends it: no command's name holds a slash."""
    run = await drive(tmp_path, lambda req: Reply.text("ok"),
                      ["/usr/lib/libx.so: not found, why?\r", "/home/me/app.py\r", "/stauts\r"])
    assert run.prompts == ["/usr/lib/libx.so: not found, why?", "/home/me/app.py"], run.prompts
    assert "unknown command /usr" not in run.out and "unknown command /home" not in run.out, run.out
    assert "unknown command /stauts (did you mean /status?)" in run.out, run.out  # a word is still a command


def test_a_path_is_no_command() -> None:
    assert not is_command("/usr/lib/x.so: not found") and not is_command("// a comment")
    assert is_command("/") and is_command("/compact keep a/b.py") and is_command("/review src/x.py")
