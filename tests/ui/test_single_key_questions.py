"""The REPL's yes/no questions (`/rewind N`, `/compact --preview`) take one key, as the permission
menu does: y is yes; n, Enter, Esc, Ctrl-C and Ctrl-D are no. They needed y and Enter: `y` then
Ctrl-D said "nothing rewound"."""

from __future__ import annotations

import asyncio

from tests.fakes.openai_server import FakeOpenAIServer, Reply

from .pty_driver import Terminal
from .repl_driver import drive
from .test_commands_terminal import answer

NO_KEYS = ("\r", "\x1b", "\x03", "\x04", "n")  # Enter, Esc, Ctrl-C, Ctrl-D, n


async def test_rewind_asks_for_one_key(tmp_path):
    keys = ["first\r"]
    for no in [*NO_KEYS, "x"]:  # any key that types a character other than y is no: a line typed ahead says no
        keys += ["/rewind 0\r", no]
    keys += ["/rewind 0\r", "Y", "\r"]  # Y is yes; the prompt given back is sent
    run = await asyncio.wait_for(drive(tmp_path, lambda req: Reply.text("ok"), keys, keys_answer=True), 60)
    assert run.out.count("nothing rewound") == len(NO_KEYS) + 1, run.out
    assert run.out.count("those turns too [y/N] n") == len(NO_KEYS) + 1
    assert "those turns too [y/N] y\nrewound; no files to restore" in run.out
    assert len(run.server.requests) == 2 and run.server.requests[-1].last_user_text() == "first"


async def test_compact_preview_asks_for_one_key(tmp_path):
    keys = ["one\r", "two\r", "/compact --preview\r", "\x04", "/compact --preview\r", "y", "/history\r"]
    run = await asyncio.wait_for(drive(tmp_path, answer, keys, keys_answer=True), 60)
    assert "keep this and rewrite the session? [y/N] n\nnot compacted; nothing was changed" in run.out, run.out
    assert "keep this and rewrite the session? [y/N] y\n" in run.out and "full transcript archived at" in run.out


def test_y_alone_answers_in_a_terminal(tmp_path):
    with FakeOpenAIServer(lambda req: Reply.text("ANSWER")) as server:
        term = Terminal(tmp_path, server.base_url, cols=100, rows=40)
        try:
            start = term.prompt()
            term.type("first\r")
            done = term.read_until("ANSWER", start)
            term.type("/rewind 0\r")
            asked = term.read_until("[y/N]", term.prompt(done))
            term.type("y")
            rewound = term.read_until("rewound; no files to restore", asked, timeout=20)
            term.prompt(rewound)
            term.type("\x15")  # Ctrl-U: the prompt given back to the input goes, so that Ctrl-D leaves
            assert term.finish() == 0
        finally:
            term.close()
