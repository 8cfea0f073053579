"""The approval question asked as one typed line (a dumb terminal, a pipe, a test's stream), and
what "always" allows (`scope_words`), which the drawn menu (approval.py) says too."""

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


def typed_answer(console: Console, tool: str, stream: TextIO | None, held: bool = False) -> Answer | Instead:
    """The answer typed to the approval question. `held` (a line the deny rules cannot read): no
    "always" is offered, and an `a` is a no, as an empty line is."""
    always = "" if held else f"[a]lways {scope_words(tool)} this session / "
    typed = typed_line(console, f"allow? [y]es once / {always}[n]o, or what to do instead (waiting for approval): ",
                       stream)
    if typed is None:  # Ctrl-C interrupts the question and the turn
        raise asyncio.CancelledError
    typed = typed.strip()
    answer = typed.lower()
    if answer in ("", "n", "no") or (held and answer in ("a", "always")):
        return "deny"
    if answer in ("y", "yes", "a", "always"):
        return "once" if answer.startswith("y") else "always"
    return Instead(typed)  # anything else is what to do instead (a no, as any other answer was)
