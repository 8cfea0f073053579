"""A command's name ends at any white space, a line break too: a paste of two commands on two
lines, which stays in the input as one message until Enter, was 'unknown command /status
/context (did you mean /context?)', the first command said not to exist."""

from __future__ import annotations

from pathlib import Path

from tests.fakes.openai_server import Reply

from .repl_driver import drive


async def test_a_pasted_second_line_is_the_commands_words(tmp_path: Path) -> None:
    run = await drive(tmp_path, lambda req: Reply.text("ok"), [["/status\r/context", "\r"], ["/history\r--all", "\r"]])
    assert "unknown command" not in run.out, run.out
    assert "/status takes no arguments; not understood: /context" in run.out, run.out
    assert "/history takes no arguments; not understood: --all" in run.out, run.out
    assert not run.server.requests
