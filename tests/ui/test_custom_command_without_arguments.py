"""A custom command run without arguments leaves no gap where `$ARGUMENTS` was: `/review` with
`Please review $ARGUMENTS carefully.` reached the model as `Please review  carefully.`, and a line
holding only the placeholder as an empty line in the middle of the prompt."""

from __future__ import annotations

import pytest

from compact_agent.ui.command_arguments import fill
from tests.fakes.openai_server import Reply

from .repl_driver import drive


async def test_a_custom_command_without_arguments_reaches_the_model_tidy(tmp_path):
    commands = tmp_path / "project" / ".compact-agent" / "commands"
    commands.mkdir(parents=True)
    (commands / "review.md").write_text("Please review $ARGUMENTS carefully.\n")
    (commands / "fix.md").write_text("---\ndescription: fix\n---\nFix the failing test $ARGUMENTS.\n$ARGUMENTS\nThen run it.\n")
    run = await drive(tmp_path, lambda req: Reply.text("ok"), ["/review\r", "/fix\r", "/review calc.py\r"])
    assert run.prompts == ["Please review carefully.", "Fix the failing test.\nThen run it.",
                           "Please review calc.py carefully."], run.out


@pytest.mark.parametrize(("text", "filled"), [
    ("Focus on: $ARGUMENTS\nthen stop", "Focus on:\nthen stop"),
    ("$ARGUMENTS are the files", "are the files"),
    ("  - $ARGUMENTS and the tests", "  - and the tests"),
    ("Explain $ARGUMENTS.\r\nBriefly.\r\n", "Explain.\r\nBriefly.\r\n"),
    ("compare $ARGUMENTS with $ARGUMENTS (twice)", "compare with (twice)"),
])
def test_the_gap_is_closed_as_the_sentence_reads_without_it(text, filled):
    assert fill(text, "") == filled
    assert fill(text, "a.py") == text.replace("$ARGUMENTS", "a.py")  # given: put in as it is
