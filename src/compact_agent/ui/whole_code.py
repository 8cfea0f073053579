"""Code in an answer's list item or block quote (or indented four spaces) printed with its lines
whole, for the terminal to wrap, as a fenced block at the top level is (turn_view.py).

rich lays such a block out in the column of the list or quote it is in, and breaks a line longer
than that column with a line break, padding the rest with spaces: code copied from the terminal had
a newline inside an expression. rich still places the block (under its bullet or number, behind the
quote's bar) but draws each code line as a short mark, `CodeMarks` holding the line itself; `whole`
then gives the rendered lines back with each mark replaced by its code line, highlighted as before,
after what stands before the mark on its line (the item's indentation, the quote's bar) and without
the padding after it.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import TYPE_CHECKING, Any

from rich.segment import Segment
from rich.text import Text

from .visible import visible

if TYPE_CHECKING:
    from rich.console import Console, ConsoleOptions

#: A mark: private-use characters no answer is expected to hold, the line's number in the middle.
_OPEN, _CLOSE, _DIGITS = "\ue000", "\ue001", 0xE100
_MARK = re.compile("\ue000([\ue100-\ue1ff]+)\ue001")


class CodeMarks:
    """The code lines of one rendered block, each drawn by rich as its mark."""

    def __init__(self) -> None:
        self.lines: list[Text] = []

    def mark(self, line: Text) -> str:
        n, digits = len(self.lines), ""
        self.lines.append(line)
        while True:
            n, digit = divmod(n, 256)
            digits = chr(_DIGITS + digit) + digits
            if not n:
                return _OPEN + digits + _CLOSE

    def line(self, digits: str) -> Text | None:
        n = 0
        for digit in digits:
            n = n * 256 + ord(digit) - _DIGITS
        return self.lines[n] if n < len(self.lines) else None


def code_lines(fence: Any, theme: str) -> list[Text]:
    """A code block's lines (markdown-it's `fence` or `code_block` token), highlighted as rich's
    markdown highlights them (the fence's language, `theme`), each whole: rich wrapped a long line
    at the width with a line break and padded it with spaces, so code copied from the terminal came
    with a newline inside an expression. They are printed for the terminal to wrap: by the view
    (turn_view.py) at the top level, by `Whole` in a list or a quote."""
    from rich.syntax import Syntax

    code = visible(str(fence.content).rstrip()).expandtabs(4)
    lexer = str(fence.info or "").partition(" ")[0] or "text"
    return list(Syntax(code, lexer, theme=theme).highlight(code + "\n").split("\n"))


def marked_code_block() -> type:
    """rich's markdown element for a code block, drawing each line as its mark when the markdown
    it belongs to has `code_marks` (render.markdown's caller sets them), else as rich draws it."""
    from rich.markdown import CodeBlock

    class MarkedCode(CodeBlock):
        marks: CodeMarks | None = None
        token: Any = None

        @classmethod
        def create(cls, markdown: Any, token: Any) -> MarkedCode:
            block = cls(str(token.info or "").partition(" ")[0] or "text", markdown.code_theme)
            block.marks, block.token = getattr(markdown, "code_marks", None), token
            return block

        def __rich_console__(self, console: Console, options: ConsoleOptions) -> Iterator[Any]:
            if self.marks is None:
                yield from super().__rich_console__(console, options)
                return
            yield Text("")  # the blank lines rich's padding drew around the block
            for line in code_lines(self.token, self.theme):
                yield Text(" " + self.marks.mark(line) if line.plain else "", no_wrap=True, overflow="ignore")
            yield Text("")

    return MarkedCode


class Whole:
    """`renderable`, rendered, with each mark's line replaced by what stands before the mark, then
    its code line whole; the rest as it was. Printed with soft wrap (no line cut at the width), it
    is laid out by the console's own options, not the print's."""

    def __init__(self, renderable: Any, marks: CodeMarks) -> None:
        self.renderable, self.marks = renderable, marks

    def __rich_console__(self, console: Console, options: ConsoleOptions) -> Iterator[Segment]:
        lines = console.render_lines(self.renderable, console.options.update_width(options.max_width), pad=False)
        yield from whole(lines, self.marks, console)


def whole(lines: list[list[Segment]], marks: CodeMarks, console: Console) -> Iterator[Segment]:
    """`lines` with each mark's line replaced by what stands before the mark, then its code line."""
    for line in lines:
        text = "".join(seg.text for seg in line)
        found = _MARK.search(text)
        code = marks.line(found.group(1)) if found else None
        if found is None or code is None:
            yield from line if text.strip() else ()  # a blank line without the spaces that padded it
        else:
            yield from _before(line, found.start())
            yield from code.render(console)
        yield Segment.line()


def _before(line: list[Segment], end: int) -> Iterator[Segment]:
    """The segments of `line` up to its `end`-th character."""
    at = 0
    for seg in line:
        if at + len(seg.text) >= end:
            if end > at:
                yield Segment(seg.text[:end - at], seg.style)
            return
        yield seg
        at += len(seg.text)
