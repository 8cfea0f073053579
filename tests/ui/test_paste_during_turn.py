"""A paste made while a turn runs is typed ahead whole, as a paste at the prompt: a large one as its
placeholder, in the input when the prompt comes back, the model getting the text. The key reader of
a turn kept single printable keys only: a paste (one bracketed-paste key) was dropped, and with
bracketed paste off during the turn a terminal sent a paste as keys, each line break an Enter that
queued its lines as messages of their own. Bracketed paste is on during the turn now."""

from __future__ import annotations

import re
import threading
from pathlib import Path
from typing import Any

from tests.fakes.openai_server import FakeOpenAIServer, Reply

from .pty_driver import PROMPT_READY, Terminal
from .repl_driver import drive, pasted

LOG = "".join(f"log line {i:02d} of the build\n" for i in range(20))


def pasting_while_working(keys: list[Any], paste: str, then: str = "") -> Any:
    """A model that, while it works on the first message, has the user paste `paste` (as the
    terminal sends it, in bracketed-paste markers), then press `then`."""
    def answer(req) -> Reply:
        if req.last_user_text() == "first":
            keys[0].send_text(pasted(paste) + then)
        return Reply.text(f"ANSWER {len(req.last_user_text())}")
    return answer


async def test_a_paste_during_a_turn_waits_in_the_next_prompt(tmp_path: Path) -> None:
    keys: list[Any] = []
    run = await drive(tmp_path, pasting_while_working(keys, LOG.replace("\n", "\r")), ["first\r", " what failed?\r"],
                      pipe=keys)
    assert run.prompts == ["first", LOG + " what failed?"], run.prompts
    assert "log line 05" not in run.out, run.out


async def test_a_paste_and_enter_during_a_turn_is_sent_after_it(tmp_path: Path) -> None:
    keys: list[Any] = []
    run = await drive(tmp_path, pasting_while_working(keys, LOG, "\r"), ["first\r"], pipe=keys)
    # Sent when the turn is over, shown as the prompt shows it: its placeholder
    assert run.prompts == ["first", LOG.strip()], run.prompts
    assert "› [pasted 20 lines]" in run.out and "log line 05" not in run.out, run.out


async def test_a_small_paste_during_a_turn_goes_in_as_it_is(tmp_path: Path) -> None:
    keys: list[Any] = []
    run = await drive(tmp_path, pasting_while_working(keys, "src/parse.py"), ["first\r", "\r"], pipe=keys)
    assert run.prompts == ["first", "src/parse.py"], run.prompts


def test_bracketed_paste_is_on_while_a_turn_runs(tmp_path: Path) -> None:
    arrived, release = threading.Event(), threading.Event()

    def held(req) -> Reply:
        if req.last_user_text() == "first":
            arrived.set()
            release.wait(60)
        return Reply.text(f"ANSWER {len(req.last_user_text())}")

    with FakeOpenAIServer(held) as server:
        term = Terminal(tmp_path, server.base_url, cols=100, rows=40)
        try:
            at = term.prompt()
            term.type("first\r")
            sent = term.read_until(b"\x1b[?2004l", at)  # the prompt turns it off as it ends
            term.read_until(PROMPT_READY, sent)  # the turn's key reader turns it on
            working = term.read_until("esc to interrupt", at)
            assert arrived.wait(60)
            term.type(pasted(LOG.replace("\n", "\r")))  # so the terminal sends a paste in its markers
            release.set()
            back = term.prompt(term.read_until("ANSWER 5", working))
            shown = term.read_until("[pasted 20 lines]", back)  # in the input
            term.type(" what failed?\r")
            term.prompt(term.read_until("ANSWER", shown))
            assert term.finish() == 0
        finally:
            release.set()
            term.close()
    assert "log line" not in re.sub(r"\x1b\[[0-9;?]*[A-Za-z]", "", term.text())
    users = [r.last_user_text() for r in server.requests]
    assert users[-1] == LOG + " what failed?", users
