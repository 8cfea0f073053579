"""Ctrl-C at a prompt that holds a draft clears it and nothing more: /help says Ctrl-C twice at an
empty prompt leaves, yet the press that cleared a draft armed the exit, and the reflex second
press 0.3 s later left the REPL."""

from __future__ import annotations

from pathlib import Path

from tests.fakes.openai_server import Reply
from tests.ui.repl_driver import drive


async def test_ctrl_c_on_a_draft_only_clears_it(tmp_path: Path) -> None:
    # typed apart, a key a read of its own: the draft, Ctrl-C on it, Ctrl-C at the empty prompt
    # 0.2 s later (which arms the exit and no more), then a message that is still sent
    run = await drive(tmp_path, lambda req: Reply.text("ok"), [["draft text", "\x03"], "\x03", "still here\r"])
    assert run.prompts == ["still here"], run.out
    assert run.out.count("press Ctrl-C again to exit") == 1, run.out  # said of the empty prompt only


async def test_ctrl_c_on_a_draft_does_not_leave_after_an_armed_press(tmp_path: Path) -> None:
    # armed at the empty prompt, then a draft typed and cleared within the two seconds: cleared, not left
    run = await drive(tmp_path, lambda req: Reply.text("ok"), ["\x03", ["draft", "\x03"], "sent\r"])
    assert run.prompts == ["sent"], run.out


async def test_ctrl_c_twice_at_an_empty_prompt_still_leaves(tmp_path: Path) -> None:
    run = await drive(tmp_path, lambda req: Reply.text("ok"), [["draft", "\x03"], "\x03", "\x03", "not sent\r"])
    assert run.prompts == [], run.out
