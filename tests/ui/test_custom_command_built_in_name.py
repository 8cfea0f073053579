"""A project command file named as a built-in command (a Claude Code project's
`.claude/commands/plan.md`) is never run, the built-in answering its name: /help says so, naming the
file, where it said nothing and the file seemed to be ignored for no reason."""

from __future__ import annotations

from pathlib import Path

from tests.fakes.openai_server import Reply

from .repl_driver import drive


async def test_help_names_a_command_file_a_built_in_hides(tmp_path: Path) -> None:
    claude = tmp_path / "project" / ".claude" / "commands"
    claude.mkdir(parents=True)
    (claude / "plan.md").write_text("Write a plan for $ARGUMENTS.\n")
    (claude / "q.md").write_text("Ask me a question.\n")
    (claude / "ship.md").write_text("Ship it.\n")
    run = await drive(tmp_path, lambda req: Reply.text("ok"), ["/help\r", "/plan\r"])
    flat = " ".join(run.out.split())
    assert ".claude/commands/plan.md is not run: /plan is a built-in command (rename the file to use it)" in flat, \
        run.out
    assert ".claude/commands/q.md is not run: /q is a built-in command" in flat, run.out
    assert "ship.md is not run" not in flat and "/ship custom: .claude/commands/ship.md" in flat, run.out
    assert run.prompts == [], run.prompts  # /plan is still the built-in: nothing went to the model
