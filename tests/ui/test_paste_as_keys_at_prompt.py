"""A terminal without bracketed paste sends a paste as keys, each line break an Enter: a paste of
three lines at the prompt was sent at its first line break, and each later line went as a message
of its own. The line breaks of keys that come together are the input's now: the paste waits in
the input, as pasted, until the user sends it with Enter. A person's Enter sends at once, as before."""

from __future__ import annotations

import asyncio
from pathlib import Path

from prompt_toolkit.key_binding import KeyPress
from prompt_toolkit.keys import Keys

from compact_agent.ui.paste_keys import PasteKeys
from compact_agent.ui.typed_ahead import BURST_GAP
from tests.fakes.openai_server import Reply

from .repl_driver import drive

LOG = "".join(f"log line {i:02d} of the build\n" for i in range(20))


def echo(req) -> Reply:
    return Reply.text(f"ANSWER {len(req.last_user_text())}")


async def test_a_paste_sent_as_keys_waits_in_the_input_until_enter(tmp_path: Path) -> None:
    paste = "make all \\\r  -j4\rsecond line\rthird line"  # a `\` at the end of a line stays, as pasted
    run = await drive(tmp_path, echo, [[paste + "\r", " what is it?", "\r"], ["next\r"]])
    assert run.prompts == ["make all \\\n  -j4\nsecond line\nthird line\n what is it?", "next"], run.prompts


async def test_a_paste_of_several_reads_is_one_message(tmp_path: Path) -> None:
    sent = LOG.replace("\n", "\r")  # 600 characters: a read of 1,024 takes them, so written in reads of 60
    chunks = [sent[i:i + 60] for i in range(0, len(sent), 60)]  # each read ends with a line break
    async with asyncio.timeout(60):  # its lines sent one by one, the input is not empty at the end
        run = await drive(tmp_path, echo, [[*chunks, 1.0, "\r"]], pause=0.001)  # reads a millisecond apart
    assert run.prompts == [LOG.strip()], run.prompts  # one message, sent by the user's Enter


async def test_a_line_typed_and_sent_with_its_enter_in_one_read_is_sent(tmp_path: Path) -> None:
    run = await drive(tmp_path, echo, [["fix it\r"], ["a\\", "\r", "b", "\r"]])
    assert run.prompts == ["fix it", "a\nb"], run.prompts  # a typed `\\` then Enter starts a new line


def press(keys: PasteKeys, data: str) -> None:
    keys.came()  # what the prompt's key processor says of a read, here of one key


def test_an_enter_with_keys_behind_it_or_in_a_burst_of_a_paste_is_a_line_break() -> None:
    now = [10.0]
    keys = PasteKeys(lambda: now[0])
    behind = [KeyPress("x", "x")]
    for ch in "ab":
        press(keys, ch)
    press(keys, "\r")
    assert keys.is_line_break(behind)  # keys waiting behind it: a paste
    press(keys, "x")
    press(keys, "\r")
    assert keys.is_line_break([])  # the paste's last line break: same burst
    now[0] += BURST_GAP * 4
    press(keys, "\r")
    assert not keys.is_line_break([])  # a person's Enter, after a pause
    press(keys, "y")
    now[0] += BURST_GAP / 2
    press(keys, "\r")
    assert not keys.is_line_break([KeyPress(Keys.CPRResponse, "\x1b[1;1R")])  # no line break in the burst yet
