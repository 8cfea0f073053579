"""The REPL ended by SIGTERM or SIGHUP (`kill`, a closed terminal window) says so in one line, as
print mode does, with the command that resumes its session, once the terminal is as it was found.

It ended without a word, and a `kill` from elsewhere left the terminal in the raw mode of the
prompt or of a turn's key reader (no echo, no line editing) with bracketed paste on: the shell it
returned to was unusable until `reset`. Nothing needs saving at that instant — a message is saved
when it is entered, every append is fsynced — so, as in print mode, the process then ends by the
signal (143 or 129 in a shell) and nothing else runs: no cleanup that could hang on a held request
or on a session still being built. The handler is installed by the command line only, never by a
REPL driven in-process (tests)."""

from __future__ import annotations

import contextlib
import os
import sys
import termios
from typing import Any

from .. import stop_signals
from .command_registry import current_repl
from .typeahead import modes_found

#: What prompt_toolkit and rich may have left on: bracketed paste, a hidden cursor, a colour.
#: Then a new line under the prompt, the toolbar below it cleared.
RESET = "\x1b[?2004l\x1b[?25h\x1b[0m\r\n\x1b[J"


def say_when_terminated() -> None:
    """From now on SIGTERM and SIGHUP put the terminal back (the modes it had now, before the
    prompt changed them), say `compact-agent: terminated (SIGTERM); the session is saved:
    `compact-agent --resume ID` continues it` (its second half once something is saved) and end
    the process by the signal."""
    attrs = modes_found()  # before echo was turned off for keys typed ahead (typeahead.py)
    if attrs is None:
        with contextlib.suppress(OSError, termios.error, ValueError):
            attrs = termios.tcgetattr(sys.stdin.fileno())
    stop_signals.say_when_terminated(continues=_continues, first=lambda: _restore(attrs))


def _continues() -> str | None:
    repl = current_repl()
    session_id = repl.saved_session() if repl is not None else None
    return None if session_id is None else f"the session is saved: `compact-agent --resume {session_id}` continues it"


def _restore(attrs: list[Any] | None) -> None:
    """The terminal's modes as they were at start-up, and its display modes off; what is still
    buffered goes first. A terminal that hung up takes nothing: each step is skipped."""
    for stream in (sys.stdout, sys.stderr):
        with contextlib.suppress(Exception):
            stream.flush()
    if attrs is not None:
        with contextlib.suppress(OSError, termios.error, ValueError):
            termios.tcsetattr(sys.stdin.fileno(), termios.TCSANOW, attrs)
    with contextlib.suppress(OSError):
        if os.isatty(1):
            os.write(1, RESET.encode())
