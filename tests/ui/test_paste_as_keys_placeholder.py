"""A large paste that comes as keys (a terminal without bracketed paste, each line break an Enter)
shows as its placeholder, `[pasted 20 lines]`, as a bracketed one does, also when its keys come in
several reads; the model gets it whole. It filled the input with every line of the paste, and the
scrollback again once sent. Keys typed apart, however fast, are never held so."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from tests.fakes.openai_server import Reply

from .repl_driver import drive

LOG = "".join(f"log line {i:02d} of the build\n" for i in range(20))
KEYS = LOG.replace("\n", "\r")  # as the terminal sends it


def echo(req: Any) -> Reply:
    return Reply.text(f"ANSWER {len(req.last_user_text())}")


async def test_a_paste_as_keys_shows_as_its_placeholder(tmp_path: Path) -> None:
    chunks = [KEYS[i:i + 60] for i in range(0, len(KEYS), 60)]  # reads a millisecond apart: one burst
    run = await drive(tmp_path, echo, [["look: ", 0.5, *chunks, 1.0, "what failed?", "\r"], ["/rewind\r"]],
                      pause=0.001)
    assert run.prompts == [f"look: {LOG}what failed?"], run.prompts  # the model got it whole
    assert "    0  › look: [pasted 20 lines]what failed?\n" in run.out, run.out  # as shown: its last line break in it
    assert "log line 01" not in run.out, run.out


async def test_a_small_paste_as_keys_and_typed_lines_stay_as_they_are(tmp_path: Path) -> None:
    small = "".join(f"line {i}\r" for i in range(3))
    typed = [ch for i in range(12) for ch in f"{i} a line typed fast\\\r"]  # a key a read, 30 ms apart
    run = await drive(tmp_path, echo, [["see ", small, 1.0, "ok", "\r"], [*typed, "end", "\r"], ["/rewind\r"]],
                      pause=0.03)
    typed_line = "".join(f"{i} a line typed fast\n" for i in range(12)) + "end"
    assert run.prompts == ["see line 0\nline 1\nline 2\nok", typed_line], run.prompts
    assert "    0  › see line 0 line 1 line 2 ok\n" in run.out and "[pasted" not in run.out, run.out
