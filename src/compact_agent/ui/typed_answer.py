"""The approval question asked as one typed line (a dumb terminal, a pipe, a test's stream), and
what "always" allows (`scope_words`), which the drawn menu (approval.py) says too; and what a line
typed as what the model should do instead is when it is a slash command (`not_words`).

Typed at a terminal, `n` is the menus' `n`: no, and a second line asks what to do instead. Read from a
pipe or a file (`piped`), each line answers one question: `n` is a plain no, and only `i` (or
`instead`) takes the next line as what to do instead; a script cannot see a second line asked."""

from __future__ import annotations

import asyncio
import signal
import sys
from typing import Any, TextIO

from rich.console import Console

from ..agent.safety.permissions import Answer, Instead


def scope_words(tool: str) -> str:
    """What "always" allows for the session: the command shown (bash), the file (write_file,
    edit_file), or the tool itself (an MCP server's: every call of it, agent/integrations/mcp_calls.py)."""
    if tool == "bash":
        return "this exact command"
    return "this file" if tool in ("write_file", "edit_file") else "this tool"


class LeaveAsked(asyncio.CancelledError):
    """`/exit` (or `/quit`, `/q`) typed where the model is to be told what to do instead: the call is
    declined and the turn stopped, as Ctrl-C there does (a turn left half-way is saved as stopped by
    the user), then the REPL leaves as /exit at the prompt does: the work's `paused`
    (work_keys.py) hands the line (`line`) to the REPL's loop as a line typed ahead."""

    def __init__(self, line: str) -> None:
        super().__init__(line)
        self.line = line


def not_words(shown: str) -> str | None:
    """What a line typed as what the model should do instead is, if a slash command (`/compact`, as
    the prompt tells one: command_registry.is_command), rather than words for the model: /exit and
    its other names alone raise `LeaveAsked`; any other, the line saying it is not run here. None
    for words (`/usr/lib/x.so is missing` too). Sent to the model, `/exit` left the REPL running
    and the model was told to "/exit"."""
    from .command_registry import EXIT_ALIASES, is_command

    if not shown.startswith("/") or not is_command(shown):
        return None
    name = (shown.split() or ["/"])[0]
    if name[1:].lower() in ("exit", *EXIT_ALIASES):  # `/Exit` too, as at the prompt
        if shown.strip() == name:
            raise LeaveAsked(name)
        return f"{name} takes no arguments; alone, it leaves now"  # as at the prompt, which refuses them
    return f"{name} is not run here (commands run at the prompt; /exit leaves now)"


def typed_only(output: Any = None) -> bool:
    """Whether a question is asked as one typed line, text only, rather than drawn: in a dumb
    terminal (TERM=dumb: an editor's shell buffer), which prints a drawing's escape sequences (cursor
    moves, colours, bracketed paste) as they are, or where stdout is not a terminal. A test's
    `output` is drawn on."""
    if output is not None:
        return False
    from prompt_toolkit.utils import is_dumb_terminal

    return is_dumb_terminal() or not sys.stdout.isatty()


def typed_line(console: Console, prompt: str, stream: TextIO | None = None) -> str | None:
    """The line typed after `prompt` ('' at the end of the input, Ctrl-D); None for Ctrl-C. The
    question blocks the event loop, whose SIGINT handler (cancel the turn) cannot run until it
    returns: Ctrl-C would only echo ^C. Here it ends the question."""
    previous = signal.signal(signal.SIGINT, signal.default_int_handler)
    try:
        return console.input(prompt, markup=False, stream=stream)
    except KeyboardInterrupt:
        return None
    except EOFError:
        return ""
    finally:
        signal.signal(signal.SIGINT, previous)


#: Typed at the question, what the menus' `n` and `i` are: "No, and tell the model what to do
#: instead", which asks for that line (`INSTEAD_ASKED`). Typed there, `n` was a plain no and `i` went
#: to the model as the instruction "i". A plain no is Enter alone (the menus' Esc).
INSTEAD_KEYS = ("n", "no", "i")
#: Read from a pipe (`piped`), the answers that ask for that line: `n` there is a plain no. It asked
#: the line too, and the answer a script meant for the next question went to the model as its
#: instruction (`n` then `y` told the model "y").
PIPED_INSTEAD_KEYS = ("i", "instead")
INSTEAD_ASKED = "  what should the model do instead? (Enter alone: just no) › "


def piped(stream: TextIO | None) -> bool:
    """Whether the answers are read from a pipe or a file (`stream`, else stdin), not typed at a
    terminal: lines written ahead, which do not see what is asked after them. The command line's
    REPL refuses a piped stdin (use -p); answers come so through run_repl's `ask_stream`."""
    source = stream if stream is not None else sys.stdin
    isatty = getattr(source, "isatty", None)
    return not callable(isatty) or not isatty()


def typed_answer(console: Console, tool: str, stream: TextIO | None, held: bool = False) -> Answer | Instead:
    """The answer typed to the approval question. `held` (a line the deny rules cannot read): no
    "always" is offered, and an `a` is a no, as an empty line is. `n` (or `i`) asks what to do
    instead, as at the menus; any other words are that. Read from a pipe (`piped`), `n` is a plain
    no and `i` (or `instead`) asks that line. A slash command is not what to do instead
    (`not_words`): `/exit` leaves, any other is said not to be run here and it is asked again."""
    always, pipe = "" if held else f"[a]lways {scope_words(tool)} this session / ", piped(stream)
    typed = asked(console, f"allow? [y]es once / {always}[n]o, or what to do instead / Enter alone: just no "
                           "(waiting for approval): ", stream)
    answer = typed.lower()
    if answer == "" or (held and answer in ("a", "always")) or (pipe and answer in ("n", "no")):
        return "deny"
    if answer in ("y", "yes", "a", "always"):
        return "once" if answer.startswith("y") else "always"
    if answer in (PIPED_INSTEAD_KEYS if pipe else INSTEAD_KEYS):  # the line comes next; Enter alone there: a plain no
        typed = asked(console, INSTEAD_ASKED, stream)
        return Instead(typed) if typed else "deny"
    return Instead(typed)  # anything else is what to do instead (a no, as any other answer was)


def asked(console: Console, question: str, stream: TextIO | None) -> str:
    """The line typed after `question`, stripped ('' at the end of the input); a slash command is
    said not to be run here and the line asked again (`/exit` leaves: `not_words`), and Ctrl-C
    interrupts the question and the turn."""
    while (typed := typed_line(console, question, stream)) is not None and (note := not_words(typed)) is not None:
        console.print(note, style="yellow", markup=False, highlight=False)  # a slash command: asked again
    if typed is None:
        raise asyncio.CancelledError
    return typed.strip()
