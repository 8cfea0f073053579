"""How the output of a `!cmd` goes in front of the message it goes with, and how the words the user
typed are told apart from it again where a message is shown rather than sent.

The REPL sends `I ran this shell command myself:\\n$ CMD\\nOUTPUT…exit code: N` and, after a blank
line, what was typed next (ui/shell_escape.py): the model reads the output when it is asked about
it. Shown as it went, that message hid what was typed behind the program's head and the output:
a session begun with `!git status` then `what changed?` was listed as 'I ran this shell command
myself: $ git status (no output) exit code: 0…', and so was its row in `/history`. Here lives no
terminal code: the sessions listing (session/listing.py) reads it too.
"""

from __future__ import annotations

import re

#: How a command's output begins in the message it goes with (`/rewind` finds it there: ui/rewound_prompt.py).
SHELL_HEAD = "I ran this shell command myself:\n$ "
#: The line that ends every command's output (agent/tools/shell.py), and the blank line after it.
_OUTPUT_END = re.compile(r"\nexit code: -?\d+[^\n]*\n\n")


def typed_after_output(text: str) -> tuple[list[str], str] | None:
    """The commands whose output `text` begins with, and what was typed after it; None when `text`
    does not begin with a command's output (or it is not whole: cut to fit a request). An output
    ends at its `exit code:` line that another command's output follows, the last one's at the
    last such line: a command that printed such a line itself is not taken for its end."""
    commands: list[str] = []
    rest = text
    while rest.startswith(SHELL_HEAD):
        line_end = rest.find("\n", len(SHELL_HEAD))
        ends = list(_OUTPUT_END.finditer(rest, line_end)) if line_end >= 0 else []
        if not ends:
            return None
        commands.append(rest[len(SHELL_HEAD):line_end].strip())
        end = next((m for m in ends if rest.startswith(SHELL_HEAD, m.end())), ends[-1])
        rest = rest[end.end():]
    return (commands, rest) if commands and rest.strip() else None


def as_typed_with_output(text: str) -> str:
    """`text` as the user typed it, the commands whose output went with it named after it:
    `what changed? (with the output of !git status)`; any other text as it is."""
    found = typed_after_output(text)
    if found is None:
        return text
    commands, typed = found
    names = " and ".join(", ".join(f"!{c}" for c in commands).rsplit(", ", 1))
    return f"{typed.strip()} (with the output of {names})"
