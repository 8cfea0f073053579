"""Keys typed into the approval menu as words, not as its answer.

A person typing their next message while the agent works may be typing when the menu comes up, or
start typing into one already on screen without looking. Its keys are single letters (`y`, `a`, `n`,
`i`, `j`, `k`, the digits, Enter): `ok go ahead⏎` moved the selection with its `k`, and its `a`
allowed the command for the rest of the session; `hello⏎` ran it (Enter takes the selected Yes);
`thanks⏎` said "always" and sent `nks` to the model as the next message.

So a key no choice takes (`o`, a space) is typing, and so is every key after it until the user stops
for `TYPING_GAP`: none of them answers, the menu says why under its keys, and they are kept, in
order, for what comes next (the prompt reads them, as keys typed during a turn). An answer typed
after the pause is taken as before. Esc, Ctrl-C and Ctrl-D are never typing.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from prompt_toolkit.input import Input
    from prompt_toolkit.key_binding import KeyPress, KeyPressEvent

#: Seconds without a key that end typing: as long as the REPL waits for typing under way to stop
#: before it shows a question (interrupt_keys.SETTLE).
TYPING_GAP = 0.5
TYPING_NOTE = ("typing? keys typed here are kept for your next message, not taken as an answer · "
               "stop a moment, then answer")


class TypingGuard:
    """The keys of typing under way at one menu (`clock`: the REPL's)."""

    def __init__(self, clock: Callable[[], float]) -> None:
        self.clock = clock
        self.at: float | None = None
        self.keys: list[KeyPress] = []

    def typed(self, event: KeyPressEvent) -> None:
        """A key no choice takes: typing begins, or goes on."""
        self.at = self.clock()
        self.keys.extend(event.key_sequence)

    def taken(self, event: KeyPressEvent) -> bool:
        """Whether a key that would answer is typing under way (kept, not an answer)."""
        if self.at is None or self.clock() - self.at >= TYPING_GAP:
            return False
        self.typed(event)
        return True

    def give_back(self, inp: Input) -> None:
        """The keys typed, before any the menu left unread, for what reads the input next."""
        from prompt_toolkit.input.typeahead import get_typeahead, store_typeahead

        if self.keys:
            store_typeahead(inp, [*self.keys, *get_typeahead(inp)])
