"""`/help`'s line for /compact gave its summary forms only: `/compact --resume-auto`, which /compact
takes alone (compact_command.parse) to resume automatic compaction paused by failures in a row, was
said nowhere in /help. The line names it."""

from __future__ import annotations

from tests.fakes.openai_server import Reply

from .repl_driver import drive


async def test_help_names_compact_resume_auto(tmp_path) -> None:
    run = await drive(tmp_path, lambda req: Reply.text("ok"), ["/help\r"])
    flat = " ".join(run.out.split())
    assert ("/compact [instructions] [--preview] [--from N | --up-to N]; /compact --resume-auto resumes "
            "automatic compaction where failures in a row paused it") in flat, flat
