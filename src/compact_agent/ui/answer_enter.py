"""The Enter typed right after a one-key answer goes with that answer, never on to what comes next.

The REPL's questions take one key: a `[y/N]` (`/rewind N`, `/compact --preview`) and the permission
menu (y/a/n). Many people type Enter after the key, as at a line prompt, and that Enter went on to
what came next: after `/rewind N`'s `y` it sent the prompt the rewind had just put back in the input,
and the turn undone ran again; after the menu's `n` it answered the line asking what the model
should do instead with nothing (a plain no). So once a key answers, the question stays up for
`ENTER_AFTER` seconds more, its answer shown: an Enter in that time is taken with the answer, and
the question ends; any other key ends it at once and is left for what comes next (the prompt, the
line asking what to do instead), as keys typed after the answer were. The rest of the word the key
begins (`yes`, `no`), which many type whole, goes with the answer too: `yes⏎` at a `[y/N]` sent `es`
to the model as a message, and `no⏎` at the menu told the model to do "o" instead. A key that is no
answer of a `[y/N]` (a no) takes what is typed on with it, up to its Enter: `sure⏎` sent `ure`, and
`/status⏎` sent `status`, to the model.

The menu's `y` and `a` end it at once (the turn goes on: its keys are its own), so the rest of their
word (`yes⏎`, `always⏎`) cannot wait there: it went on as typed, `es` or `lways` sent to the model
as a message after the turn (or in the next prompt), and its Enter said yes to the next menu. The
question notes the word (`typed_on`), and the keys it left unread (prompt_toolkit's typeahead) and
those the turn's reader reads next (interrupt_keys.py, `word_taken`) are taken against it: its
letters in order, case aside, then one Enter, go with the answer; the first other key ends the word
and goes on, with all after it (`yx⏎` leaves `x⏎`: the letters already typed stay taken, as `yess`
leaves `s` at a `[y/N]`). Read later than `ENTER_AFTER` after the key before, with the reader able to
read meanwhile, a key is typed after a pause: never the word's.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Iterator
from typing import TYPE_CHECKING, Any, Generic, TypeVar

if TYPE_CHECKING:  # prompt_toolkit is imported once a question is asked (approval.py, imported by print mode too)
    from prompt_toolkit.input import Input
    from prompt_toolkit.key_binding import KeyBindings, KeyPress, KeyPressEvent

T = TypeVar("T")

#: How long (seconds) a question answered by one key waits for the Enter typed after that key: a
#: typist's keys come 0.1-0.3 s apart, and an Enter typed on after the answer comes as soon.
ENTER_AFTER = 0.5
#: The word each answering key begins (the menu's `a` too, `typed_on`): its other letters, typed on,
#: go with the answer.
WORDS = {"y": "yes", "n": "no", "a": "always"}


class AnswerEnter(Generic[T]):
    """The answer of a one-key question (`answered`, `answer`), given by `give`, and the key bindings
    of the question (`bindings`): its own keys until it is answered, then those that wait `wait`
    seconds for the answer's Enter."""

    def __init__(self, wait: float | None = None) -> None:
        self.wait = ENTER_AFTER if wait is None else wait  # read as asked: a test's machine may be slow
        self.answered = False
        self.answer: T | None = None
        self.spelled = ""  # the answer's key, and the letters of its word typed after it
        self.any_word = False  # every key typed on goes with the answer, to its Enter
        self._timer: asyncio.TimerHandle | None = None

    def give(self, event: KeyPressEvent, answer: T, *, any_word: bool = False) -> None:
        """`answer`, by the key of `event`: the question waits for an Enter, then ends with it. `any_word`:
        every key typed on goes with it (a key that is no answer), not only its word's (`WORDS`)."""
        if self.answered:
            return
        self.answered, self.answer, self.spelled = True, answer, event.data.lower()
        self.any_word = any_word
        event.app.invalidate()  # the answer shown at once
        self._wait(event)

    def _wait(self, event: KeyPressEvent) -> None:
        """The question ends `wait` seconds from now, unless a key ends it first."""
        app, answer = event.app, self.answer

        def end() -> None:
            if app.is_running and not app.is_done:  # not ended by a key meanwhile
                app.exit(result=answer)
        if self._timer is not None:
            self._timer.cancel()
        self._timer = asyncio.get_running_loop().call_later(self.wait, end)

    def _spells(self, data: str) -> bool:
        """Whether `data`, typed after the answer, goes on with the word its key begins (`e` after `y`)."""
        if self.any_word:
            return data.isprintable() and bool(data)
        word, typed = WORDS.get(self.spelled[:1], ""), self.spelled + data.lower()
        return len(typed) <= len(word) and word.startswith(typed)

    def _end(self, event: KeyPressEvent) -> None:
        if self._timer is not None:
            self._timer.cancel()
        event.app.exit(result=self.answer)

    def bindings(self, own: KeyBindings) -> Any:
        """`own`, the question's keys, until it is answered; then Enter, taken with the answer, and
        any other key, which ends the question and goes to what comes next (prompt_toolkit keeps
        the keys an application left unread for the next one on the same input)."""
        from prompt_toolkit.filters import Condition
        from prompt_toolkit.key_binding import ConditionalKeyBindings, KeyBindings, merge_key_bindings

        after = KeyBindings()

        @after.add("enter")
        def _enter(event: KeyPressEvent) -> None:
            self._end(event)

        @after.add("<any>")
        def _other(event: KeyPressEvent) -> None:
            if self._spells(event.data):  # `yes`, `no` typed whole: with the answer, and the Enter after it too
                self.spelled += event.data.lower()
                self._wait(event)
                return
            self._end(event)
            for key in reversed(event.key_sequence):
                event.app.key_processor.feed(key, first=True)

        waiting = Condition(lambda: not self.answered)
        return merge_key_bindings([ConditionalKeyBindings(own, waiting), ConditionalKeyBindings(after, ~waiting)])


class WordOn:
    """The rest of the word an answer's key began (`rest`), to be typed on after the question ended,
    the last of its keys read at `at` (the clock's time); `over` once a key that is not its came."""

    def __init__(self, rest: str, at: float) -> None:
        self.rest, self.at, self.over = rest, at, False

    def take(self, keys: list[KeyPress], could_read: float, now: float) -> list[KeyPress]:
        """`keys`, one read at `now`, without those at their head that go on with the word: its next
        letters, then an Enter (which ends it). `could_read`: when the reader last could read before
        this read; over `ENTER_AFTER` after the word's last key, these were typed after a pause."""
        if could_read - self.at > ENTER_AFTER:
            self.over = True
        taken = 0
        while not self.over and taken < len(keys):
            data = keys[taken].data
            if data in ("\r", "\n"):
                self.over = True  # the Enter after the word (or the part of it typed) goes with it too
            elif self.rest and data.lower() == self.rest[0]:
                self.rest = self.rest[1:]
            else:
                self.over = True
                break
            taken += 1
        if taken:
            self.at = now
        return keys[taken:]


#: The word typed on after a question that ended at once, by its input (`typed_on`), as prompt_toolkit
#: keeps the keys an application left unread by input (prompt_toolkit.input.typeahead).
_words: dict[str, WordOn] = {}


def typed_on(inp: Input, key: str, at: float) -> None:
    """The menu ended on `key` at `at`: the rest of its word (`WORDS`) goes with it, from the keys
    the menu left unread (read with the key: no pause) and then from those read next (`word_taken`)."""
    from prompt_toolkit.input.typeahead import get_typeahead, store_typeahead

    _words.pop(inp.typeahead_hash(), None)
    word = WORDS.get(key.lower())
    if word is None:
        return
    on = WordOn(word[1:], at)
    store_typeahead(inp, on.take(get_typeahead(inp), at, at))
    if not on.over:
        _words[inp.typeahead_hash()] = on


def word_taken(inp: Input, keys: list[KeyPress], could_read: float, now: float) -> list[KeyPress]:
    """`keys`, read from `inp` at `now`, without those that go on with the word of the answer before
    them (`typed_on`). `could_read`: when the reader last could read before this read."""
    on = _words.get(inp.typeahead_hash())
    if on is None:
        return keys
    keys = on.take(keys, could_read, now)
    if on.over:
        del _words[inp.typeahead_hash()]
    return keys


@contextlib.contextmanager
def typed_before(inp: Input | None) -> Iterator[None]:
    """While a question is asked: the keys an earlier screen left unread on `inp` (prompt_toolkit's
    typeahead; None: the terminal's input) were typed before it was up, so they are never its answer.
    Held aside, they are put back before whatever the question leaves, for what comes next (the next
    prompt reads them). A second Enter after one menu's answer, read with it, answered the next menu:
    the command after it was allowed before it was even shown."""
    from prompt_toolkit.application.current import get_app_session
    from prompt_toolkit.input.typeahead import get_typeahead, store_typeahead

    inp = inp if inp is not None else get_app_session().input
    ahead = get_typeahead(inp)
    try:
        yield
    finally:
        store_typeahead(inp, [*ahead, *get_typeahead(inp)])
