"""What the terminal shows while a turn runs (the keys that stop it: interrupt_keys.py).

A spinner with the elapsed time and the context size says the agent is working (a 15 s command
otherwise looks frozen); each tool call and its outcome get one line as they happen. The answer is
markdown, rendered by rich block by block as it streams (a block is done at a blank line outside a
code fence), after a `⏺` marker that sets the assistant's words apart from tool lines; the spinner
is up only while nothing else prints, and a blank line separates the answer from the next prompt.

Every block is rendered on its own and the gap between two blocks is drawn here, one blank line
(none next to a fenced code block, printed between blank lines of its own, its lines whole for the
terminal to wrap), so the answer looks the same however the stream was cut: in one piece, line by line (a resumed session) or token by token. Rendering
what had arrived as one piece dropped the gap at every boundary where the stream happened to pause.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator
from typing import Any

from rich.cells import cell_len
from rich.console import Console, ConsoleOptions
from rich.measure import Measurement
from rich.segment import Segment
from rich.status import Status
from rich.text import Text

from . import tool_lines
from .visible import visible


class SpinnerLabel:
    """`thinking… 12s · context 8.4k tokens`, recomputed at every refresh of the spinner.

    It stays on one line: at 60 columns `running write_file… 3s · context 1.0k tokens · esc to
    interrupt` wrapped, and the spinner took two rows. A narrow terminal gets the size in fewer
    words, then none, then the line cut (`esc to interrupt` kept as long as it fits)."""

    def __init__(self, clock: Callable[[], float], tokens: Callable[[], int]) -> None:
        self.clock, self.tokens = clock, tokens
        self.start = clock()
        self.doing = "thinking"

    def text(self, width: int | None = None) -> str:
        """The label, within `width` columns when given."""
        elapsed = int(self.clock() - self.start)
        n = self.tokens()
        sizes = [f" · context {n / 1000:.1f}k tokens", f" · {n / 1000:.1f}k tokens", ""] if n else [""]
        said = [f"{self.doing}… {elapsed}s{size} · esc to interrupt" for size in sizes]
        return next((line for line in said if width is None or cell_len(line) <= width), said[-1])

    def __rich_measure__(self, console: Console, options: ConsoleOptions) -> Measurement:
        return Measurement(1, min(options.max_width, cell_len(self.text())))

    def __rich_console__(self, console: Console, options: ConsoleOptions) -> Iterator[Text]:
        yield Text(self.text(options.max_width), style="dim", no_wrap=True, overflow="ellipsis")


class TurnView:
    """Callbacks for `AgentSession.run_turn` that draw the turn on `console`."""

    def __init__(self, console: Console, tokens: Callable[[], int],
                 clock: Callable[[], float] = time.monotonic, spinner: bool = True) -> None:
        self.console = console
        self.tool_lines = tool_lines.Lines()
        self.label = SpinnerLabel(clock, tokens)
        self.status: Status | None = None
        self.use_spinner = spinner and console.is_terminal
        self.pending = ""  # answer text of the block not finished yet
        self.marked = False  # the answer's marker was printed
        self.answered = False
        self.ends_in_code = False
        self.results_shown: set[str] = set()  # the ids of the calls whose result line is printed

    def start(self, doing: str = "thinking") -> None:
        self._spin(doing)

    def stop(self) -> None:
        if self.status is not None:
            self.status.stop()
            self.status = None

    def _spin(self, doing: str) -> None:
        self.label.doing = doing
        if self.use_spinner and self.status is None:
            self.status = self.console.status(self.label)
            self.status.start()

    def on_text(self, text: str) -> None:
        self.pending += text
        done = finished_blocks(self.pending)
        if done:
            self.stop()
            for block in split_blocks(self.pending[:done]):
                self._print_markdown(block)
            self.pending = self.pending[done:]
            self._spin("writing")

    def flush(self) -> None:
        if self.pending.strip():
            self.stop()
            for block in split_blocks(self.pending):
                self._print_markdown(block)
        self.pending = ""

    def _print_markdown(self, text: str) -> None:
        """One block of the answer, after the gap that separates it from the block before; a fenced
        code block in it (not in a list or a quote) printed on its own, by `_print_code`."""
        from .render import fenced_parts

        for part, fence in fenced_parts(text):
            if fence is None:
                self._print_text(part)
            else:
                self._print_code(fence)

    def _print_code(self, fence: Any) -> None:
        """A fenced code block, highlighted, three columns in, between blank lines (its gap; the
        marker on the one above where it begins the answer), each line printed whole for the terminal
        to wrap: laid out in the answer's column, a long line was broken with a line break and
        padded with spaces, and copied from the terminal so, the code no longer ran."""
        from .whole_code import code_lines

        self.console.print(Text("⏺" if not self.marked else "", style="bold"))
        for line in code_lines(fence, "ansi_dark"):
            self.console.print(Text("   ").append_text(line) if line.plain else Text(""), soft_wrap=True)
        self.console.print()
        self.marked = self.answered = self.ends_in_code = True

    def _print_text(self, text: str) -> None:
        from rich.table import Table

        from .render import markdown
        from .whole_code import CodeMarks, Whole

        if not text.strip():
            return
        if self.marked and not self.ends_in_code and not _starts_with_fence(text):
            self.console.print()  # the blank line between two blocks (a code block's padding is one)
        row = Table.grid(padding=(0, 1))
        row.add_column(width=1, no_wrap=True)
        row.add_column(overflow="fold")  # a word longer than the column (CJK prose, a URL) folds, not cut with "…"
        ends_in_code = text.rstrip().endswith(("```", "~~~"))  # rich pads a code block with a blank line
        md = markdown(text.strip("\n"), code_theme="ansi_dark")
        marks = md.code_marks = CodeMarks()  # code in a list or a quote, its lines whole (whole_code.py)
        body = _Trimmed(md, keep_top=_starts_with_fence(text), keep_bottom=ends_in_code)
        row.add_row(Text("⏺" if not self.marked else " ", style="bold"), body)
        if any(token.type in ("fence", "code_block") for token in md.parsed):
            self.console.print(Whole(row, marks), soft_wrap=True)
        else:
            self.console.print(row)
        self.marked = self.answered = True
        self.ends_in_code = ends_in_code

    def on_tool(self, obj: dict[str, Any]) -> None:
        self.flush()
        self.stop()
        self.marked = False  # text after tool calls is a new answer block
        width = min(tool_lines.WIDTH, self.console.width)  # a line each, not wrapped by the terminal
        if obj["type"] == "tool_call":
            self.console.print(self.tool_lines.line(obj, width), style="bold", highlight=False)
            self._spin(f"running {obj.get('tool', 'tool')}")
        else:
            self._result(obj, width)
            self._spin("thinking")

    def kept_results(self, objs: list[dict[str, Any]]) -> None:
        """The result lines of calls that had finished when the turn was stopped and are kept with
        their results (agent/run/ended_calls.py), those the stop came before: each as it would have shown."""
        width = min(tool_lines.WIDTH, self.console.width)
        for obj in objs:
            if str(obj.get("id", "")) not in self.results_shown:
                self._result(obj, width)

    def _result(self, obj: dict[str, Any], width: int) -> None:
        """`  ⎿ 1 line`, red for an error, with the last lines of a command's output under it."""
        self.results_shown.add(str(obj.get("id", "")))
        told = tool_lines.told_instead(obj) is not None  # declined with the user's words: no error, and no
        failed = obj.get("error") and not told  # tail of them under its line (a paste of theirs had its last lines)
        tail = obj.get("tail") or []
        shows_tail = not told and (len(tail) > 1 or bool(tail and obj.get("output_lines", 0) > 1))
        summary = str(obj.get("summary") or "")
        if shows_tail and summary.startswith("exit code:"):  # the tail under it shows the last line
            obj = {**obj, "summary": summary.partition(" · ")[0]}
        line = self.tool_lines.line(obj, width)
        self.console.print(line, style="red" if failed else "dim", highlight=False)
        if shows_tail:  # one line of output stays on the result line alone
            more = obj.get("output_lines", len(tail)) - len(tail)
            cut = obj.get("cut_chars") or 0  # 100,000 lines read '5720 lines before · ctrl+o shows all'
            went = f", and {cut:,} characters cut from the middle" if cut else ""
            head = f"    … {more} line{'s' if more != 1 else ''} before{went} · ctrl+o shows " \
                f"{'what was kept' if cut else 'all'}\n" if more > 0 else ""
            self.console.print(Text(visible(head + "\n".join("    " + ln for ln in tail)), style="dim"),
                               highlight=False, soft_wrap=False, overflow="ellipsis", no_wrap=True)

    def end(self) -> None:
        """However the turn ended: no spinner left, the answer so far printed, a blank line."""
        self.stop()
        self.flush()
        if self.answered:
            if not self.ends_in_code:  # one blank line before the next prompt, not two
                self.console.print()
            self.answered = False


def kept_finished(messages: list[Any]) -> list[dict[str, Any]]:
    """The results, as tool events (stream_events.py), of the calls that had finished when the user
    stopped the turn, which the history keeps with them (agent/run/ended_calls.py): the last request's."""
    from pydantic_ai.messages import FunctionToolResultEvent, ModelRequest, ToolReturnPart

    from ..agent.run.stream_events import tool_event
    from ..context.plumbing.markers import KEY
    from ..session.last_run import BY_USER, ENDED_BY, UNFINISHED

    last = messages[-1] if messages else None
    objs = []
    for part in last.parts if isinstance(last, ModelRequest) else []:
        if not isinstance(part, ToolReturnPart) or not isinstance(part.metadata, dict):
            continue
        own = part.metadata.get(KEY)
        if isinstance(own, dict) and own.get(ENDED_BY) == BY_USER and own.get(UNFINISHED) is not True and \
                (obj := tool_event(FunctionToolResultEvent(part))) is not None:
            objs.append(obj)
    return objs


def finished_blocks(text: str) -> int:
    """How many leading characters of streamed markdown form finished blocks: up to the last blank
    line outside a code fence (a fence's own blank lines do not end it)."""
    in_fence = False
    done = pos = 0
    for line in text.splitlines(keepends=True):
        pos += len(line)
        stripped = line.strip()
        if stripped.startswith(("```", "~~~")):
            in_fence = not in_fence
        elif not stripped and not in_fence and line.endswith("\n"):
            done = pos
    return done


def split_blocks(text: str) -> list[str]:
    """The blocks of finished markdown, each without the blank lines around it: a block ends at a
    blank line outside a code fence, as in `finished_blocks`."""
    blocks: list[str] = []
    current: list[str] = []
    in_fence = False
    for line in text.splitlines(keepends=True):
        stripped = line.strip()
        if stripped.startswith(("```", "~~~")):
            in_fence = not in_fence
        elif not stripped and not in_fence:
            if current:
                blocks.append("".join(current))
            current = []
            continue
        current.append(line)
    if current:
        blocks.append("".join(current))
    return blocks


def _starts_with_fence(block: str) -> bool:
    return block.lstrip().startswith(("```", "~~~"))


class _Trimmed:
    """A rendered block without the blank lines rich puts above a list or a quote that comes first
    (the gap is ours to draw, and the marker belongs on the first line of words), nor the one it
    puts under a table (a table and the block after it were two blank lines apart). A fenced code
    block keeps its padding, which is its gap (`ends_in_code`)."""

    def __init__(self, renderable: Any, keep_top: bool, keep_bottom: bool = True) -> None:
        self.renderable, self.keep_top, self.keep_bottom = renderable, keep_top, keep_bottom

    def __rich_console__(self, console: Console, options: ConsoleOptions) -> Iterator[Segment]:
        lines = console.render_lines(self.renderable, options, pad=False)
        while lines and not self.keep_top and not "".join(seg.text for seg in lines[0]).strip():
            lines.pop(0)
        while lines and not self.keep_bottom and not "".join(seg.text for seg in lines[-1]).strip():
            lines.pop()
        for line in lines:
            yield from line
            yield Segment.line()
