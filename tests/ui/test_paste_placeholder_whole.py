"""A paste's placeholder is one unit in the input. Deleting one character in its middle left
`[pasted 20 lines]` of `[pasted 200 lines]`, no longer a placeholder: those words went to the model
and the paste was lost without a word. A deletion that touches a placeholder (Backspace or Delete
inside it, Ctrl-W, Ctrl-K) now takes it whole, a character typed inside it goes after it, and Undo
brings a placeholder taken back with its paste."""

from __future__ import annotations

from pathlib import Path

from compact_agent.ui.paste_guard import mend
from tests.fakes.openai_server import Reply

from .repl_driver import drive, pasted
from .test_paste_placeholder import LOG, prompt_once

LEFT, BACKSPACE, DELETE, CTRL_W, CTRL_K, UNDO = "\x1b[D", "\x7f", "\x1b[3~", "\x17", "\x0b", "\x1f"
SHOWN = "[pasted 200 lines]"


async def test_backspace_inside_the_placeholder_takes_it_whole(tmp_path: Path) -> None:
    line, _ = await prompt_once(tmp_path, "see ", pasted(LOG), " end", LEFT * 9, BACKSPACE, "\r")
    assert line == "see  end"  # not "see [pasted 200 les] end"


async def test_delete_inside_the_placeholder_takes_it_whole(tmp_path: Path) -> None:
    line, _ = await prompt_once(tmp_path, "see ", pasted(LOG), " end", LEFT * 12, DELETE, "\r")
    assert line == "see  end"


async def test_deleting_words_into_the_placeholder_takes_it_whole(tmp_path: Path) -> None:
    line, _ = await prompt_once(tmp_path, "see ", pasted(LOG), " end", LEFT * 6, CTRL_W, "\r")
    assert line == "see  end"
    line, _ = await prompt_once(tmp_path, "see ", pasted(LOG), " end", LEFT * 12, CTRL_K, "\r")
    assert line == "see "


async def test_a_character_typed_inside_goes_after_the_placeholder(tmp_path: Path) -> None:
    line, _ = await prompt_once(tmp_path, "see ", pasted(LOG), " end", LEFT * 12, "x", "y\r")
    assert line == f"see {LOG}xy end"


async def test_undo_brings_the_placeholder_back_with_its_paste(tmp_path: Path) -> None:
    line, _ = await prompt_once(tmp_path, "see ", pasted(LOG), " end", LEFT * 9, BACKSPACE, UNDO, "\r")
    assert line == f"see {LOG} end"


async def test_the_model_never_gets_a_broken_placeholder(tmp_path: Path) -> None:
    run = await drive(tmp_path, lambda req: Reply.text("ok"), [f"see {pasted(LOG)} end{LEFT * 9}{BACKSPACE}\r"])
    assert run.prompts == ["see  end"], run.prompts


def test_an_edit_beside_a_placeholder_leaves_it_alone() -> None:
    names = [SHOWN]
    assert mend(SHOWN, "[" + SHOWN, 1, names) is None  # `[` typed before it
    assert mend(SHOWN, SHOWN + "]", len(SHOWN) + 1, names) is None  # `]` typed after it
    assert mend(SHOWN + "]", SHOWN, len(SHOWN), names) is None  # the `]` typed after it deleted
    assert mend(SHOWN + "]", SHOWN, len(SHOWN) - 1, names) == ("]", 0)  # its own `]` deleted: all of it
    assert mend(SHOWN, "[pasted 20 lines]", 10, names) == ("", 0)
    assert mend("a " + SHOWN + " b", "a [pasted 200 lines] b c", 24, names) is None
