"""A REPL stand-in for a command run in process without one: it answers no to every question. Print
mode refuses `/compact --preview` (it cannot ask); a test that wants the preview's figures without
driving a whole REPL runs the command inside `declining()`."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager


class Declines:
    """What /compact asks of a running REPL (`confirm`), always answered no."""

    def __init__(self) -> None:
        self.asked: list[str] = []

    async def confirm(self, question: str) -> bool:
        self.asked.append(question)
        return False


@contextmanager
def declining() -> Iterator[Declines]:
    from compact_agent.ui.command_registry import running

    repl = Declines()
    running.append(repl)  # type: ignore[arg-type]  # only `confirm` is asked of it
    try:
        yield repl
    finally:
        running.remove(repl)  # type: ignore[arg-type]
