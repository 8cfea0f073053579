"""A mistyped custom command gets the "did you mean" a built-in gets: `/revew calc.py` where
`.compact-agent/commands/review.md` exists said only "unknown command /revew; /help lists them"."""

from __future__ import annotations

from tests.fakes.openai_server import Reply

from .repl_driver import drive


async def test_a_mistyped_custom_command_is_named_in_the_repl(tmp_path):
    commands = tmp_path / "project" / ".compact-agent" / "commands"
    commands.mkdir(parents=True)
    (commands / "review.md").write_text("Please review $ARGUMENTS carefully.\n")
    run = await drive(tmp_path, lambda req: Reply.text("ok"), ["/revew calc.py\r", "/statsu\r"])
    assert "unknown command /revew (did you mean /review?); /help lists them" in run.out, run.out
    assert "unknown command /statsu (did you mean /status?)" in run.out
    assert not run.server.requests  # nothing was sent
