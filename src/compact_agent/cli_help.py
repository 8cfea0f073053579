"""Help and errors that read as written: typer's defaults show `{paths}... <list[Path]>` for a list
argument and `[x>=2048]` for a bound; ours say `PATH...` and `must be at least 2,048 tokens`."""

from __future__ import annotations

from typing import Any

import typer
from typer.core import TyperArgument, TyperCommand


class _AsWritten(TyperArgument):
    """An argument shown by its metavar alone (`PATH...`), where typer would write `{paths}...` in
    the usage line and `<list[Path]>` in the help."""

    def _usage_display_name(self) -> str:
        return self.display_name_raw

    def display_type_rich(self, ctx: Any) -> str | None:
        return None


class ReadableCommand(TyperCommand):
    """A command whose help reads as written: arguments given a metavar show just that."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        for param in self.params:
            if type(param) is TyperArgument and param.metavar:
                param.__class__ = _AsWritten


MAX_WINDOW = 10_000_000  # tokens: no model has more (config.py bounds the setting alike)
# No smallest window here: the one that works depends on what every request carries (the system
# prompt with the instruction files, the tools, an MCP server's tools), so the session refuses a
# window too small for them, naming where it was given and the minimum it needs
# (agent/run/window_check.py). A bound of our own below that said a second, wrong minimum.


def window_size(value: int | None) -> int | None:
    """--context-window: a number that is no window at all; a too small one is the session's to refuse."""
    if value is not None and value < 1:
        raise typer.BadParameter("must be a positive number of tokens")
    if value is not None and value > MAX_WINDOW:
        raise typer.BadParameter(f"must be at most {MAX_WINDOW:,} tokens")
    return value


def at_least(n: int, unit: str = "", at_most: int | None = None) -> Any:
    """Bounds said in words (`must be at least 2,048 tokens`); typer's `min=` shows `[x>=2048]`."""
    def check(value: int | None) -> int | None:
        if value is not None and value < n:
            raise typer.BadParameter(f"must be at least {n:,}{unit}")
        if value is not None and at_most is not None and value > at_most:
            raise typer.BadParameter(f"must be at most {at_most:,}{unit}")
        return value
    return check
