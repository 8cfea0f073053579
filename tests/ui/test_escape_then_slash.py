"""Esc at an idle prompt, then a slash command: the emacs binding Esc-/ (complete) swallowed the
"/", so "/cost" went to the model as the message "cost" and cost a turn. The REPL teaches Esc for
"stop" and "just no", so a stray one before a command is common."""

from __future__ import annotations

from tests.fakes.openai_server import Reply

from .repl_driver import drive


async def test_escape_before_a_slash_command_keeps_the_slash(tmp_path) -> None:
    run = await drive(tmp_path, lambda req: Reply.text("You said something"), ["\x1b/cost\r"])
    assert run.prompts == [], run.prompts  # nothing went to the model
    assert "no requests yet in this session" in run.out and "You said something" not in run.out, run.out
