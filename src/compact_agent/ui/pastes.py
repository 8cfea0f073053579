"""A large paste at the prompt is held behind a placeholder: `[pasted 240 lines]`.

A log of a few hundred lines pasted into the input filled the screen while it was edited, and
again in the scrollback once sent. The terminal says where a paste begins and ends (bracketed
paste, which prompt_toolkit switches on), so a paste longer than a few lines goes into the input as
its placeholder, and the text stays here, attached to it, until Enter: the line the REPL gets back
has every placeholder replaced by its text, so the model, the session file and the prompt history
get the paste whole. The screen keeps the placeholder, also after Enter.

Typing before or after a placeholder and moving over it work as around any words; it is one unit:
Backspace right after it, or any deletion that touches it, takes the whole placeholder (and its
paste) away, and a character typed inside it goes after it (paste_guard.py). The same words
typed are typed words, never the paste (paste_lookalikes.py). A small paste
(a path, a command, a few lines) goes in as it is. A paste made while a turn runs is typed ahead the
same way (interrupt_keys.InterruptKeys): its placeholder is in the input when the prompt comes back, or,
ended with Enter, in the line sent after the turn; its text is held until then.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field

#: A paste of more lines than this, or of more characters, is held behind a placeholder. What
#: is pasted most often stays as it is, to read and edit in place: a path, a command, an error
#: line, a function signature, a stack trace's last frames. Beyond 8 lines the input takes more
#: rows than a terminal of 24 can spare under the scrollback, and a paste that large is read by
#: the model, not edited by hand. 1,000 characters is about as many rows of one long line (a
#: minified JSON, a base64 blob) at 120 columns.
MOST_LINES = 8
MOST_CHARS = 1_000


def as_typed(data: str) -> str:
    """A paste's line endings as the input has them (some terminals paste `\\r\\n`, or `\\r`)."""
    return data.replace("\r\n", "\n").replace("\r", "\n")


def as_sent(line: str) -> str:
    """A message as the REPL sends it: without the blank lines before it and the white space after
    it, the first line's indentation kept: a block of code pasted at the start of the message is
    sent as pasted, not with its first line moved to the margin."""
    return sent_ends(line)[1]


def sent_ends(line: str) -> tuple[str, str, str]:
    """`line` as (what `as_sent` drops before it, the message sent, what it drops after it)."""
    body = re.sub(r"\A(?:[ \t]*\n)+", "", line)
    sent = body.rstrip()
    return line[:len(line) - len(body)], sent, body[len(sent):]


@dataclass
class Pastes:
    """The pastes held behind the placeholders of the input being edited, by placeholder."""

    held: dict[str, str] = field(default_factory=dict)
    #: the line last sent, as shown (its placeholders), and the pastes they held: what the REPL
    #: remembers of a prompt for `/rewind` to give back as it was (rewound_prompt.py)
    sent: tuple[str, dict[str, str]] = ("", {})

    #: True while a small paste goes into the input as text: its words are typed text, whatever
    #: they look like (paste_lookalikes.py)
    typing: bool = False
    #: the other texts the input can be given (the prompt history, up-arrow): no placeholder's
    #: words are in them either, or a line brought back holding such words would send the paste
    elsewhere: Callable[[], Iterable[str]] = lambda: ()

    def insert(self, data: str, avoid: str = "") -> str:
        """What goes into the input for the paste `data`: the text itself when small, else its
        placeholder (the text held for it), worded so it is nowhere in `avoid` (the input it goes
        into: words typed there that look like it stay typed words)."""
        text = as_typed(data)
        lines = len(text.splitlines())
        if lines <= MOST_LINES and len(text) <= MOST_CHARS:
            return text
        size = f"{lines:,} lines" if lines > 1 else f"{len(text):,} characters"
        placeholder = self.name(f"[pasted {size}]", avoid)
        self.held[placeholder] = text
        return placeholder

    def name(self, first: str, avoid: str = "") -> str:
        """A placeholder's words, `first` where nothing is held and `avoid` does not hold them, else
        numbered (`[pasted 20 lines #2]` for a second paste in the same input)."""
        placeholder, number = first, max(2, len(self.held) + 1)
        others = list(self.elsewhere())
        while (self.held and placeholder == first) or placeholder in self.held or placeholder in avoid \
                or any(placeholder in text for text in others):
            placeholder = f"{first[:-1]} #{number}]"
            number += 1
        return placeholder

    def expand(self, line: str) -> str:
        """`line` with each placeholder replaced by the paste it holds (in one pass: a paste that
        itself holds a placeholder's words goes as it was pasted)."""
        if not self.held:
            return line
        names = sorted(self.held, key=len, reverse=True)
        return re.sub("|".join(map(re.escape, names)), lambda m: self.held[m.group(0)], line)

    def take(self, line: str) -> str:
        """`expand`, and the pastes of `line` no longer held: it is sent."""
        expanded = self.expand(line)
        self.sent = (line, {p: self.held.pop(p) for p in [p for p in self.held if p in line]})
        return expanded

    def hold_again(self, line: str, held: dict[str, str]) -> str:
        """`line`, shown with the placeholders of the pastes `held`, as an input to edit again:
        each paste held anew, under its placeholder or another one if that is taken."""
        if not held:
            return line
        found = "|".join(map(re.escape, sorted(held, key=len, reverse=True)))
        typed = re.sub(found, "\0", line)  # the words around the placeholders: a new one is none of them
        names = {p: self.insert(text, typed) for p, text in held.items()}
        return re.sub(found, lambda m: names[m.group(0)], line)

    def keep(self, text: str) -> None:
        """A new input, starting with `text` (what was typed ahead during a turn): only the pastes
        of its placeholders stay held (the last input was sent, or dropped with Ctrl-C)."""
        self.held = {p: held for p, held in self.held.items() if p in text}
