"""Ctrl-C at the REPL's prompt: a draft is cleared, and twice within two seconds at an empty prompt
leaves (as Claude Code and Codex do; /help says so).

The press that cleared a draft armed the exit too, so clearing a line with Ctrl-C and pressing it
again by reflex left the REPL: only a press at an empty prompt arms it now, and a press on a draft
takes back one that did (it was the draft the user meant to drop, not the REPL)."""

from __future__ import annotations

from collections.abc import Callable

from rich.console import Console

#: Within this many seconds of the press that armed it, a second one at an empty prompt leaves.
TWICE_WITHIN_S = 2.0


class PromptCtrlC:
    """What a Ctrl-C at the prompt does, by when the last press at an empty prompt came (`clock`)."""

    def __init__(self, console: Console, clock: Callable[[], float]) -> None:
        self.console, self.clock = console, clock
        self.armed_at = float("-inf")

    def leaves(self, draft: str) -> bool:
        """A Ctrl-C with `draft` in the input (prompt_toolkit leaves the text in the buffer it
        aborted): True when the REPL is to end. A draft is only cleared (the prompt comes back
        empty); at an empty prompt the first press says how to leave, the second leaves."""
        if draft:
            self.armed_at = float("-inf")
            return False
        if self.clock() - self.armed_at < TWICE_WITHIN_S:
            return True
        self.armed_at = self.clock()
        self.console.print("press Ctrl-C again to exit (or Ctrl-D, /exit)", style="dim")
        return False
