"""Words typed that look like a paste's placeholder are never taken for one. Typing
`[pasted 200 lines]` beside a paste of 200 lines sent the log twice; typing it after deleting the
paste sent the deleted log; typed before the paste, the paste took the same words and both went
out as the log. Now the placeholder is worded apart from the typed words (`[pasted 200 lines #2]`),
at the prompt, in a small paste, in keys typed ahead during a turn and in a line of the prompt
history, and the typed words go to the model as typed. A placeholder cut (Ctrl-W, Ctrl-K) and put
back (Ctrl-Y) is the paste again: Ctrl-W put only its last word, `lines]`, on the clipboard."""

from __future__ import annotations

from pathlib import Path

from prompt_toolkit.key_binding import KeyPress
from prompt_toolkit.keys import Keys

from compact_agent.ui.paste_lookalikes import disown, typed_on
from compact_agent.ui.pastes import Pastes
from compact_agent.ui.typed_ahead import TypedAhead
from tests.fakes.openai_server import Reply

from .paste_terminal import paste_in_terminal
from .repl_driver import drive, pasted
from .test_paste_placeholder import LOG, prompt_once

SHOWN = "[pasted 200 lines]"
UP, LEFT, BACKSPACE, UNDO = "\x1b[A", "\x1b[D", "\x7f", "\x1f"
HOME, CTRL_W, CTRL_K, CTRL_Y = "\x01", "\x17", "\x0b", "\x19"


def typed(pastes: Pastes, text: str, keys: str) -> str:
    """`text` with `keys` typed after it one by one."""
    for k in keys:
        text = typed_on(pastes, text, k)
    return text


def test_words_typed_beside_a_placeholder_stay_words_and_it_is_worded_anew() -> None:
    pastes = Pastes()
    line = typed(pastes, "see " + pastes.insert(LOG) + " ", SHOWN)
    assert line == f"see [pasted 200 lines #2] {SHOWN}"
    assert pastes.expand(line) == f"see {LOG} {SHOWN}"


def test_words_typed_after_the_placeholder_was_deleted_stay_words() -> None:
    pastes = Pastes()
    pastes.insert(LOG)  # held for Undo, no longer in the input
    line = typed(pastes, "see ", SHOWN)
    assert line == f"see {SHOWN}" and pastes.expand(line) == line and not pastes.held


def test_a_paste_is_worded_apart_from_words_typed_before_it() -> None:
    pastes = Pastes()
    assert pastes.insert(LOG, f"see {SHOWN} and ") == "[pasted 200 lines #2]"
    assert pastes.expand(f"see {SHOWN} and [pasted 200 lines #2]") == f"see {SHOWN} and {LOG}"


def test_a_small_paste_of_the_words_stays_words_and_undo_brings_a_placeholder_back() -> None:
    pastes = Pastes()
    before = pastes.insert(LOG) + " "
    assert disown(pastes, before, before + SHOWN, len(before + SHOWN), typing=True) == \
        (f"[pasted 200 lines #2] {SHOWN}", len(before + SHOWN) + 3)
    pastes = Pastes()
    pastes.insert(LOG)
    assert disown(pastes, "a  b", f"a {SHOWN} b", 2 + len(SHOWN), typing=False) is None  # Undo: it is back


def test_a_deletion_that_joins_the_words_leaves_them_words() -> None:
    pastes = Pastes()
    pastes.insert(LOG)
    before = "[pasted 200 XXlines]"
    assert disown(pastes, before, SHOWN, 12, typing=False) == (SHOWN, 12)
    assert pastes.expand(SHOWN) == SHOWN


def keys(text: str) -> list[KeyPress]:
    return [KeyPress(ch, ch) for ch in text]


def test_keys_typed_ahead_that_spell_a_placeholder_stay_words() -> None:
    now = [0.0]
    pastes = Pastes()
    ahead = TypedAhead(pastes, lambda: now[0])
    ahead.read([KeyPress(Keys.BracketedPaste, LOG)])
    for ch in f" look\r{SHOWN}":
        now[0] += 1.0  # typed apart, as a person types
        ahead.read(keys(ch))
    first, then = ahead.take_queued(), ahead.take_typed()
    assert (first, then) == ("[pasted 200 lines #2] look", SHOWN)
    assert pastes.take(first or "") == f"{LOG} look" and pastes.take(then) == SHOWN


async def test_at_the_prompt_typed_words_are_sent_as_typed(tmp_path: Path) -> None:
    line, _ = await prompt_once(tmp_path, "a ", pasted(LOG), f" b {SHOWN}\r")
    assert line == f"a {LOG} b {SHOWN}"
    line, _ = await prompt_once(tmp_path, f"{SHOWN} b ", pasted(LOG), "\r")
    assert line == f"{SHOWN} b {LOG}"
    line, _ = await prompt_once(tmp_path, "a ", pasted(LOG), BACKSPACE, f"{SHOWN}\r")
    assert line == f"a {SHOWN}"
    line, _ = await prompt_once(tmp_path, "a ", pasted(LOG), " ", pasted(SHOWN), "\r")
    assert line == f"a {LOG} {SHOWN}"  # a small paste of the words


async def test_a_placeholder_cut_and_yanked_is_still_the_paste(tmp_path: Path) -> None:
    line, _ = await prompt_once(tmp_path, "a ", pasted(LOG), LEFT * len(SHOWN), CTRL_K, "b ", CTRL_Y, "\r")
    assert line == f"a b {LOG}"
    # Ctrl-W cut the last word of the placeholder, `lines]`: the clipboard has all that went
    line, _ = await prompt_once(tmp_path, "a ", pasted(LOG), CTRL_W, "b ", CTRL_Y, "\r")
    assert line == f"a b {LOG}"
    line, _ = await prompt_once(tmp_path, "a ", pasted(LOG), " end", CTRL_W, CTRL_W, "b ", CTRL_Y, "\r")
    assert line == f"a b {LOG} end"  # Ctrl-W twice: the clipboard has both cuts, the placeholder whole
    line, _ = await prompt_once(tmp_path, "a ", pasted(LOG), " end", LEFT * 8, CTRL_K, CTRL_Y, CTRL_Y, "\r")
    assert line == f"a {LOG} end{LOG} end"  # Ctrl-K from inside it: the placeholder and what follows
    line, _ = await prompt_once(tmp_path, "]x", HOME, CTRL_K, pasted(LOG), BACKSPACE, CTRL_Y, "\r")
    assert line == "]x"  # Backspace cuts nothing: the clipboard keeps what Ctrl-K cut
    line, _ = await prompt_once(tmp_path, "a ", pasted(LOG), BACKSPACE, UNDO, "\r")
    assert line == f"a {LOG}"


async def test_the_session_and_a_resume_keep_the_typed_words(tmp_path: Path) -> None:
    run = await drive(tmp_path, lambda req: Reply.text("ok"), [f"see {pasted(LOG)} not {SHOWN}\r"])
    assert run.prompts == [f"see {LOG} not {SHOWN}"], run.prompts
    again = await drive(tmp_path, lambda req: Reply.text("ok"), [], continue_last=True)
    assert f"› see [pasted 200 lines #2] not {SHOWN}" in again.out, again.out


def test_in_a_terminal_the_model_gets_the_paste_once(tmp_path: Path) -> None:
    run = paste_in_terminal(tmp_path, "look: ", LOG, SHOWN, f" and {SHOWN}", "READ-IT")
    term, seen = run.term, run.seen
    # the placeholder worded anew: the screen redraws from where its words changed
    assert " #2]" in term.text(run.shown, run.done), term.text(run.shown, run.done)
    assert seen == [f"look: {LOG} and {SHOWN}"], seen
    assert "paste-line-" not in term.text()


async def test_a_line_brought_back_from_the_history_with_the_words_sends_them(tmp_path: Path) -> None:
    await prompt_once(tmp_path, f"not {SHOWN}\r")  # typed words, kept in the prompt history
    line, pastes = await prompt_once(tmp_path, pasted(LOG), UP, "\r")  # Up: that line, in place of the paste
    assert line == f"not {SHOWN}" and list(pastes.held) == ["[pasted 200 lines #2]"]
