"""Keys typed ahead while the REPL starts are not echoed above its banner.

The command line turns echo off before the slow imports (`quiet_typeahead`); the REPL turns it
back on once its prompt is up (`echo_back`), and prompt_toolkit starts with what was typed.
"""

from __future__ import annotations

import contextlib
import sys
import time
from collections.abc import Iterator
from typing import Any


@contextlib.contextmanager
def quiet_typeahead(repl: bool) -> Iterator[None]:
    """While the REPL starts (imports take a moment), keys typed ahead are not echoed above the
    banner: the terminal keeps them, and the prompt starts with them once it is up."""
    import termios

    fd = sys.stdin.fileno() if repl and sys.stdin is not None and sys.stdin.isatty() else -1
    try:
        saved = termios.tcgetattr(fd) if fd >= 0 else None
    except (termios.error, OSError):
        saved = None
    def restore() -> None:
        if saved is not None:
            with contextlib.suppress(termios.error, OSError):
                termios.tcsetattr(fd, termios.TCSANOW, saved)

    if saved is not None:
        quiet = list(saved)
        quiet[3] &= ~termios.ECHO
        with contextlib.suppress(termios.error, OSError):
            termios.tcsetattr(fd, termios.TCSANOW, quiet)
    _echo_back[:] = [restore]
    _found[:] = [saved] if saved is not None else []
    _began[:] = [time.monotonic()]
    try:
        yield
    finally:
        restore()
        _echo_back.clear()
        _found.clear()
        _began.clear()


_echo_back: list[Any] = []
_found: list[Any] = []  # the terminal's modes before echo was turned off
_began: list[float] = []  # when the command line began keeping keys typed ahead (time.monotonic)


def began() -> float | None:
    """When the command line began (time.monotonic; None outside `quiet_typeahead`): keys typed
    since piled up unread until the REPL reads them."""
    return _began[0] if _began else None


def modes_found() -> list[Any] | None:
    """The terminal's modes as the command line found them (None outside `quiet_typeahead`): what
    a REPL ended by a signal puts back (repl_signals.py), echo on as the shell had it."""
    return _found[0] if _found else None


def echo_back() -> None:
    """The REPL's prompt is up: the terminal echoes again (prompt_toolkit keeps what was typed ahead)."""
    for restore in _echo_back:
        restore()
