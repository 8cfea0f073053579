"""A slash command's text for a JSON result: its tables without box drawing.

`-p /cost --output-format json` put rich's table in the `result` string: `┏━━━┳━━━` rules, `│`
between the figures and the title centred over them with spaces, all of which a script strips
before it can read a figure. A JSON result is laid out without an 80-column cut (print_mode.py),
so a table that goes under headings in 80 columns (/cost) fits there whole, and was drawn. Here
each table is drawn plain: its title and caption at the left, a line of column names, a line per
row, the columns two spaces apart. Grids (tables without a box: /context's legend) are as they were.
"""

from __future__ import annotations

import copy
from collections.abc import Iterable
from typing import Any

from rich.console import ConsoleOptions, RenderableType
from rich.segment import Segment
from rich.table import Table

from .render import SafeConsole


def plain(table: Table) -> Table:
    """`table` without its box, its outer edge and the padding beside it; its rows as they are."""
    bare = copy.copy(table)
    bare.box = None
    bare.show_edge = bare.pad_edge = False
    bare.title_justify = bare.caption_justify = "left"
    return bare


class PlainConsole(SafeConsole):
    """A console whose every table (a command's own, or one inside another renderable) is drawn
    `plain`: rich renders what a renderable yields through `render`, so a table nested in a group
    or a layout of its own (/cost's figures) is met here too."""

    def render(self, renderable: RenderableType, options: ConsoleOptions | None = None) -> Iterable[Segment]:
        shown: Any = plain(renderable) if isinstance(renderable, Table) and renderable.box is not None else renderable
        return super().render(shown, options)
