"""/help lists a project's custom command with the description its front matter gives (as Claude
Code's command files carry one): it showed the file's path alone."""

from __future__ import annotations

from pathlib import Path

from tests.fakes.openai_server import Reply

from .repl_driver import drive


async def test_help_shows_a_custom_commands_description(tmp_path: Path) -> None:
    commands = tmp_path / "project" / ".compact-agent" / "commands"
    commands.mkdir(parents=True)
    (commands / "review.md").write_text('---\ndescription: "review a file for bugs"\n---\nReview $ARGUMENTS.\n')
    (commands / "plain.md").write_text("Say hello.\n")
    run = await drive(tmp_path, lambda req: Reply.text("ok"), ["/help\r", "/review calc.py\r"])
    flat = " ".join(run.out.split())
    assert "/review review a file for bugs (custom: .compact-agent/commands/review.md)" in flat, run.out
    assert "/plain custom: .compact-agent/commands/plain.md" in flat, run.out
    assert run.prompts == ["Review calc.py."], run.prompts  # the front matter is no part of the prompt
