"""Declining a call with "No, and tell the model what to do instead" said so twice: the
confirmation under the question ("  declined; the model is told: use echo instead") and, right
under it, the call's result line ("  ⎿ declined; the model is told: use echo instead"). The result
line says it, as /expand and /history do; the typed instruction stays on the screen above it."""

from __future__ import annotations

import re
from pathlib import Path

from tests.fakes.openai_server import FakeOpenAIServer

from .pty_driver import Terminal
from .repl_driver import drive
from .test_approval_instead import asked_what_instead, bash_then_told

TOLD = "declined; the model is told: use echo instead"


async def test_the_instruction_is_said_once_without_a_terminal(tmp_path: Path) -> None:
    run = await drive(tmp_path, bash_then_told, ["run it\r"], answers="use echo instead\n")
    said = [line for line in run.out.splitlines() if TOLD in line]
    assert len(said) == 1 and "⎿" in said[0], run.out
    assert "DONE: told to use echo instead" in run.out


def test_the_instruction_is_said_once_in_a_terminal(tmp_path: Path) -> None:
    with FakeOpenAIServer(bash_then_told) as server:
        term = Terminal(tmp_path, server.base_url, cols=100, rows=40)
        try:
            asked = asked_what_instead(term)
            term.type("use echo instead\r")
            done = term.read_until("DONE: told to use echo instead", asked)
            shown = re.sub(r"\x1b\[[0-9;?]*[A-Za-z]", "", term.text(asked, done))
            assert shown.count(TOLD) == 1 and f"⎿ {TOLD}" in shown, shown
            term.prompt(done)
            assert term.finish() == 0
        finally:
            term.close()
