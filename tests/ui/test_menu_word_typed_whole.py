"""`yes` or `always` typed whole at the permission menu goes with the answer. The menu ends at once
on `y` or `a` (the turn goes on), and the rest of the word went on as typed: `yes⏎` sent `es` to the
model as a message after the turn (or left it in the next prompt), `always⏎` sent `lways`. Now the
word's other letters, in order and in any case, then one Enter, go with the answer; anything else
typed after it goes on untouched.

A partial word then another key (`yx⏎`, `yeah⏎`): the letters of the word typed before that key stay
taken, and that key goes on with all after it (`x⏎`, `ah⏎`). A key read once is gone from where the
rest of the line goes (the turn's reader took `e` apart from `ah⏎`), so giving the letters back could
not be done alike in every case, and it is what a `[y/N]` does with `yess` (test_yes_typed_whole.py).
An Enter after part of the word (`ye⏎`) ends it and goes with the answer too, as at a `[y/N]`."""

from __future__ import annotations

import io

from prompt_toolkit.input import create_pipe_input
from prompt_toolkit.input.typeahead import get_typeahead
from prompt_toolkit.key_binding import KeyPress
from prompt_toolkit.output import DummyOutput
from rich.console import Console

from compact_agent.ui.answer_enter import ENTER_AFTER, WordOn
from compact_agent.ui.approval import make_ask, nothing
from compact_agent.ui.interrupt_keys import InterruptKeys
from tests.fakes.openai_server import FakeOpenAIServer, user_messages

from .pty_driver import Terminal
from .repl_driver import Typist
from .test_approval_instead import bash_then_told


def no_wait(seconds: float) -> bool:
    """The wait for more typing before the question reads keys, none coming (nothing sleeps)."""
    return False


def console() -> Console:
    return Console(file=io.StringIO(), width=100)


async def test_the_word_read_with_its_key_goes_with_the_answer() -> None:
    """Typed quickly, the word comes in the read of its key: what the menu left unread (prompt_toolkit's
    typeahead, which the next prompt starts with) is the next input alone."""
    for typed, answer, left in [("yes\rhello\r", "once", "hello\r"), ("always\rhello\r", "always", "hello\r"),
                                ("YeS\rhello\r", "once", "hello\r"), ("ALWAYS\r", "always", ""),
                                ("yhello\r", "once", "hello\r"), ("y\rhello\r", "once", "hello\r"),
                                ("yes", "once", ""), ("ye\rhello\r", "once", "hello\r"),
                                ("yx\r", "once", "x\r"), ("yeah\r", "once", "ah\r"), ("yesyes\r", "once", "yes\r"),
                                ("ayes\r", "always", "yes\r")]:
        with create_pipe_input() as inp:
            inp.send_text(typed)
            ask = make_ask(console(), nothing, use_menu=True, inp=inp, output=DummyOutput())
            assert ask("bash", "make check") == answer, typed
            assert "".join(k.data for k in get_typeahead(inp)) == left, typed


def typed_at_the_menu(inp, keys: list[str]) -> tuple[str, InterruptKeys]:
    """The menu asked as in a turn (its reader paused, then reading again), `keys` typed once it is
    up, at a typist's pace: each a read of its own, 0.2 s after the one before. The answer, and the
    reader once it has read what came after the answer."""
    typist = Typist(inp)
    reader = InterruptKeys(inp, lambda: None, wait=no_wait, clock=typist)
    reader.start()
    hand_over = reader.hand_over

    def then_typed() -> bool:  # typed once the menu is up: its answer, and on
        handed = hand_over()
        typist.type(keys)
        return handed
    reader.hand_over = then_typed  # type: ignore[method-assign]
    answer = make_ask(console(), reader.paused, use_menu=True, inp=inp, output=DummyOutput(), clock=typist)("bash", "make")
    reader.catch_up()  # the turn's reader reads what came after the answer
    return str(answer), reader


async def test_the_word_typed_apart_is_not_sent_after_the_turn() -> None:
    """Typed at a typist's pace, the word's keys come after the menu ended, to the turn's key reader:
    `es` was a line typed ahead, sent to the model once the turn was over, before `hello`."""
    for keys, answer in [(["y", "e", "s", "\r", "hello\r"], "once"), (["a", "l", "w", "A", "Y", "s", "\r", "hello\r"], "always"),
                         (["y", "hello\r"], "once"), (["y", "\r", "hello\r"], "once")]:
        with create_pipe_input() as inp:
            got, reader = typed_at_the_menu(inp, keys)
            try:
                assert got == answer, keys
                assert reader.take_queued() == "hello", keys
                assert reader.take_queued() is None and reader.typed == "", keys
                assert [k.data for k in get_typeahead(inp)] == [], keys
            finally:
                reader.stop()


def test_a_key_typed_after_a_pause_is_not_the_words() -> None:
    """`y`, then a message begun long after it ("each file…"): its `e` is kept. A read after the
    reader could not read for a while (the loop busy) may hold keys typed right after the answer."""
    def e() -> list[KeyPress]:
        return [KeyPress("e", "e"), KeyPress("a", "a")]

    assert [k.data for k in WordOn("es", 100.0).take(e(), 100.0 + ENTER_AFTER + 0.1, 101.0)] == ["e", "a"]
    assert [k.data for k in WordOn("es", 100.0).take(e(), 100.1, 103.0)] == ["a"]  # the loop was busy till 103
    word = WordOn("es", 100.0)
    word.take(e()[:1], 100.1, 100.2)  # `e` read at 100.2: the next key is measured from it
    assert [k.data for k in word.take([KeyPress("s", "s")], 100.2 + ENTER_AFTER - 0.1, 100.8)] == []


def test_yes_and_always_typed_whole_in_a_terminal_send_nothing_to_the_model(tmp_path) -> None:
    """The program in a terminal: `yes⏎` and `always⏎` at bash's menu, then `hello⏎` at the prompt.
    The model got `es` and `lways` as messages (the next prompt took them, Enter and all)."""
    with FakeOpenAIServer(bash_then_told) as server:
        term = Terminal(tmp_path, server.base_url, cols=100, rows=40)
        try:
            at = term.prompt()
            for line, typed in [("run it\r", "yes\r"), ("again\r", "always\r")]:
                term.type(line)
                menu = term.read_until("Allow bash?", at)
                term.read_until("3. No, and tell the model what to do instead", menu)
                term.type(typed)
                at = term.prompt(term.read_until("DONE: ran", menu))
            term.type("hello\r")
            at = term.prompt(term.read_until("DONE", at))
            assert term.finish() == 0
        finally:
            term.close()
    sent = [user_messages(req)[-1]["content"] for req in server.requests if not bash_then_told_result(req)]
    assert sent == ["run it", "again", "hello"], sent


def bash_then_told_result(req) -> bool:
    """A request that carries the bash call's result (the turn going on), not a message typed."""
    return "tool" in str(req.messages[-1].get("role"))
