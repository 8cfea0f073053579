"""/context, /cost and /plan: what the window holds, what it cost, the plan (/model: model_command.py).

Registered into the slash-command table from here (commands.py imports this module), so the
numbers live in agent/accounting/context_report.py and agent/accounting/costs.py and this file only draws them.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from rich.console import Console, ConsoleOptions, Group
from rich.measure import Measurement
from rich.table import Table
from rich.text import Text

from ..agent.accounting.context_report import CATEGORIES, ContextPicture, cost_report, picture
from ..agent.accounting.costs import CostReport, Entry, cost_words
from ..agent.run.first_request import prepare
from ..agent.run.runner import AgentSession
from ..agent.tools.todos import TodoItem
from ..words import plural
from .command_registry import command

STYLES = {
    "system": "grey70", "instructions_file": "cyan", "tools": "blue", "mcp_tools": "bright_blue",
    "plan": "magenta", "summary": "yellow", "context": "bright_magenta", "files": "green",
    "messages": "white", "results_live": "bright_green", "results_spilled": "dark_orange",
    "results_cleared": "grey50", "collapsed": "orange3",
}
USED, FREE, RESERVED = "⛁", "⛶", "⛝"
GRID_W, GRID_H = 20, 10


def _k(n: int) -> str:
    return f"{n / 1000:.1f}k" if n >= 1000 else str(n)


def grid_cells(p: ContextPicture, cells: int = GRID_W * GRID_H) -> list[tuple[str, str]]:
    """(symbol, style) per cell: categories in order, then free space, then the reserved tail."""
    per = max(1, p.window) / cells
    out: list[tuple[str, str]] = []
    for key, _ in CATEGORIES:
        n = p.rows.get(key, 0)
        if n > 0:
            out += [(USED, STYLES[key])] * max(1, round(n / per))
    reserved = round(p.reserved / per)
    out = out[: max(0, cells - reserved)]  # the reserve left is what the context does not use
    out += [(FREE, "grey39")] * max(0, cells - reserved - len(out))
    out += [(RESERVED, "red")] * max(0, cells - len(out))
    return out[:cells]


def reserved_words(p: ContextPicture) -> str:
    """`reserved: answer 4.0k (room for a summary) + buffer 1.6k`: the room for the model's answer
    follows what it writes, so the threshold moves between two /context calls (after a longer
    answer, or a compaction that learned a summary's size); this says what sized it. Past the
    threshold the context uses part of it: the row's figure is what is left."""
    if not p.room_source:
        return "reserved (output + auto-compact buffer)" + (" left" if p.used > p.threshold else "")
    return f"reserved: answer {_k(p.answer_room)} ({p.room_source}) + buffer {_k(p.buffer)}" \
        + (", what is left" if p.used > p.threshold else "")


def reserve_rows(p: ContextPicture, room: int) -> list[tuple[str, str, str]]:
    """(label, tokens, share) rows of the reserve: one, `reserved_words`, where its label fits in
    `room` columns; else the reserve on its row and its two parts under it, each with its size
    (in 60 columns the one label wrapped under the figures, its end orphaned)."""
    share = f"{100 * p.reserved / p.window:.1f}%"
    words = reserved_words(p)
    if not p.room_source or len(words) <= room:
        return [(words, _k(p.reserved), share)]
    head = "reserved, what is left" if p.used > p.threshold else "reserved"
    return [(head, _k(p.reserved), share), (_under(f"answer ({p.room_source})", room), _k(p.answer_room), ""),
            (_under("auto-compact buffer", room), _k(p.buffer), "")]


def _under(label: str, room: int) -> str:
    """A part of the reserve, two columns in, each of its lines where it wraps in `room` (at 40
    columns `the window)` went on at the column its row's mark was in)."""
    from .cells import wrap

    return "\n".join("  " + line for line in wrap(label, max(10, room - 2), fold=False))


def asked_words(p: ContextPicture) -> str:
    """What the requests ask for as `max_tokens` beside the room the threshold keeps for an answer,
    where they ask for any: the two differ (64,000 sent, a reserve of 12.0k shown) and /context said
    only the reserve."""
    if not p.asked:
        return ""
    if p.asked_counted:
        return (f"requests ask for answers of up to {p.asked:,} tokens (max_tokens), held against the window "
                f"with the prompt: the room kept for an answer is at least that")
    return (f"requests ask for answers of up to {p.asked:,} tokens (max_tokens, the model's most): Anthropic "
            f"ends one at the window instead of refusing the request, and bills only what is written, so the "
            f"answer's {_k(p.answer_room)} above is the room kept for one, not a cap")


def render_context(p: ContextPicture, width: int = 120) -> Table:
    """The grid beside its legend where the width allows (100 columns), else the legend under it;
    under them, what the requests ask for as `max_tokens` (`asked_words`)."""
    cells = grid_cells(p)
    grid = Text()
    for row in range(GRID_H):
        line = cells[row * GRID_W:(row + 1) * GRID_W]
        for i, (sym, style) in enumerate(line):
            grid.append(sym + (" " if i < len(line) - 1 else ""), style=style)
        grid.append("\n")
    legend = Table.grid(padding=(0, 1))
    for col in ("mark", "what", "tokens", "share"):  # a figure on the last line of a label that wraps
        legend.add_column(col, justify="right" if col in ("tokens", "share") else "left",
                          no_wrap=col != "what", vertical="bottom" if col in ("tokens", "share") else "top")
    names = dict(CATEGORIES)
    rows = [(Text(USED, style=STYLES[key]), names[key] + (f" ({p.results[key]})" if key in p.results else ""),
             _k(n), f"{100 * n / p.window:.1f}%") for key, _ in CATEGORIES if (n := p.rows.get(key, 0))]
    rows.append((Text(FREE, style="grey39"), "free until auto-compaction", _k(p.free),
                 f"{100 * p.free / p.window:.1f}%"))
    # The legend's room for labels: its width (beside the grid from 100 columns) less the mark, the
    # figures and the gaps between the four columns.
    figures = [(t, s) for _, _, t, s in rows] + [(_k(max(p.reserved, p.buffer)), f"{100 * p.reserved / p.window:.1f}%")]
    room = (width if width < 100 else width - 2 * GRID_W - 1) - 4 - max(len(t) for t, _ in figures) \
        - max(len(s) for _, s in figures)
    rows += [(Text(RESERVED if i == 0 else "", style="red"), label, size, share)
             for i, (label, size, share) in enumerate(reserve_rows(p, room))]
    for mark, label, size, share in rows:
        legend.add_row(mark, label, size, share)
    head = heading(p, width if width < 100 else width - 2 * GRID_W - 1 - 2)  # beside the grid: its 39 + the gap
    outer = Table.grid(padding=(0, 2))
    asked = [Text(words)] if (words := asked_words(p)) else []
    if width >= 100:
        outer.add_column(no_wrap=True)
        outer.add_column()
        outer.add_row(grid, Group(head, legend, *asked))
    else:
        outer.add_column()
        outer.add_row(Group(head, grid, legend, *asked))
    return outer


def heading(p: ContextPicture, room: int) -> Text:
    """`context 28.0k / 128.0k tokens (22%), provider-reported; auto-compaction at 100.0k`, one line
    where it fits in `room` columns, else the size on one and the threshold on the next. Left to the
    terminal, it broke where the width fell: `…; auto-compaction` above a lone `at 19.8k`. A history
    past the window (a server's smaller window learned, a system prompt that nearly fills it) says on a
    line of its own that every request is shrunk to fit: `(151%)` alone read as a request sent too long."""
    src = "provider-reported" if p.anchored else "estimated"
    size = f"context {_k(p.used)} / {_k(p.window)} tokens ({100 * p.used / p.window:.0f}%), {src}"
    at = f"auto-compaction at {_k(p.threshold)}"
    over = f"\n{OVER_WINDOW}" if p.used > p.window else ""
    return Text((f"{size}; {at}" if len(size) + 2 + len(at) <= room else f"{size}\n{at}") + over)


#: Under /context's heading where the history is past the window.
OVER_WINDOW = "past the window: each request is shrunk to fit it"


#: /cost before the session's first request, before what that costs.
NO_REQUESTS = "no requests yet in this session"


def render_cost(r: CostReport, title: str = "tokens and cost, whole session (every run)", *,
                compactions: int, model_priced: bool = True, model: str = "") -> Group:
    """The figures in one table where it fits the terminal whole; where it does not (below about 110
    columns with a model name and million-token figures), each `kind · model` and the total as a
    heading over its figures, two to a line, or one below 50 columns (a session of one `kind · model`
    has no total: it said the same figures twice). A number is never cut: the
    table squeezed into 60 columns showed `111,2…` and no model at all. The write column only when
    something was written to a cache; prices we do not know say so instead of $0.

    `model_priced`: whether the session's model has known prices, which decides for a report of no
    request (a new session's `-p /cost` said `$0.0000` of a model whose prices are unknown, where
    one request later it said `unknown`); `model`: its name, which the note says (`prices unknown
    for qwen-small`: it said `this model` of an earlier model's requests while another was in use).
    The total is `costs.cost_words`: the requests of known prices summed, the others counted apart.

    `compactions`: how many the session made. What was kept out of the requests is the layers'
    trimming of each request plus what compactions removed; with none made, the line says the
    trimming did it (it said "compaction kept" of a session never compacted).

    A session that has made no request yet says so in one line (`NO_REQUESTS`): it was a table of
    zeros under a lone `total` row."""
    if not sum(r.requests.values()):
        return Group(Text(NO_REQUESTS + (": no tokens used, nothing spent" if model_priced else
                                         f" (prices unknown for {model or 'this model'})")))
    writes = r.total.cache_write > 0

    def money(e: Entry, cost: float) -> str:
        return f"${cost:.4f}" if e.info.has_prices else "unknown"

    cols = ["requests", "input", "cache hit", "cache miss", *(["cache write"] if writes else []), "output", "cost"]
    rows: list[tuple[str, list[str]]] = []
    for key, e in r.rows.items():
        rows.append((key, [str(r.requests[key]), f"{e.input_tokens:,}", f"{e.cache_read:,}", f"{e.miss:,}",
                           *([f"{e.cache_write:,}"] if writes else []), f"{e.output_tokens:,}", money(e, e.cost)]))
    tot = r.total
    if len(rows) != 1:  # one row: the total would say its figures again, under them
        rows.append(("total", [str(sum(r.requests.values())), f"{tot.input_tokens:,}", f"{tot.cache_read:,}",
                               f"{tot.miss:,}", *([f"{tot.cache_write:,}"] if writes else []), f"{tot.output_tokens:,}",
                               cost_words(r)]))
    t = CostFigures(title, cols, rows)
    lines: list[Any] = [t]
    unpriced = r.unpriced_models
    if unpriced:
        lines.append(Text(f"prices unknown for {', '.join(unpriced)} ("
                          f"{'a local or unlisted model' if len(unpriced) == 1 else 'local or unlisted models'}): "
                          f"tokens are counted, money is not ({plural(r.unpriced, 'request')} at unknown prices)"))
    if r.repriced:  # made before the model's prices were given (cost_report)
        lines.append(Text(f"{plural(r.repriced, 'request')} made before this model's prices were given "
                          f"{'is' if r.repriced == 1 else 'are'} priced at them"))
    if r.stopped > r.unanswered:
        lines.append(Text(stopped_line(r.stopped - r.unanswered, r.estimated - r.unanswered)))
    if r.unanswered:
        lines.append(Text(unanswered_line(r.unanswered, r.unanswered_input)))
    if r.avoided_tokens:
        lines.append(Text(saved_words(r, compactions)))
    else:
        lines.append(Text("compaction has kept nothing out of the requests yet"))
    return Group(*lines)


def saved_words(r: CostReport, compactions: int) -> str:
    """What was kept out of the requests, and what that saved against what could have been sent
    instead: each request whole, or a full window where whole it would not have fit (a provider
    refuses it). Priced whole, the net saving was over a run that could not have happened; the
    tokens are counted the same way (`CostReport.avoided_sendable`), not summed whole. The
    requests that would not have fit are said in one wording, priced or not (`OVER`); the money is
    that of the requests of known prices, those of unknown prices said apart (`costs.cost_words`)."""
    who = (f"{plural(compactions, 'compaction')} and trimming what was sent" if compactions else
           "no compaction yet; trimming what was sent (large tool results previewed, old tool results cleared, "
           "old rounds folded)")
    over = OVER.format(plural(r.over_window, "request")) if r.over_window else ""
    kept = r.avoided_sendable  # each request's up to a full window, as the money counts it
    if r.unpriced == sum(r.requests.values()):
        return (f"{who} kept ~{kept:,} input tokens out of the requests (money unknown)"
                + (f"; {over}: counted as a full window" if over else ""))
    whole = "each request whole" + (f" ({over}: counted as a full window)" if over else "")
    apart = f" (the {plural(r.unpriced, 'request')} at unknown prices not priced)" if r.unpriced else ""
    return (f"{who} kept ~{kept:,} input tokens out of the requests; against sending {whole}: "
            f"≈ ${r.avoided_cost:.4f} saved at this session's cache mix, summaries and notes cost "
            f"${r.compaction_cost:.4f}, net ≈ ${r.net_saving:.4f}{apart}")


#: The requests that, whole, would not have fit the window: one wording wherever /cost says them.
OVER = "{} would not have fit the window whole"


def stopped_line(stopped: int, estimated: int) -> str:
    """`1 request you stopped mid-reply is counted (the provider bills what it read): its input tokens
    are an estimate, no usage had come`: the server answered it, /cost counted it not at all."""
    which = "" if not estimated else (
        f": {'its' if stopped == 1 else 'their'} input tokens are an estimate, no usage had come" if estimated == stopped
        else f": {estimated} of them with input tokens estimated, no usage had come")
    known = "" if estimated == stopped else " with the usage received before the stop" if not estimated else ""
    return (f"{plural(stopped, 'request')} you stopped mid-reply {'is' if stopped == 1 else 'are'} counted"
            f"{known} (the provider bills what it read){which}")


def unanswered_line(count: int, input_tokens: int) -> str:
    """`1 request you stopped before its reply began is counted: its input tokens (~5,003) are an
    estimate of what was sent, no usage came`: a slow prefill stopped at `thinking…` had been sent,
    the server had it, and /cost counted it not at all, nor said so."""
    one = count == 1
    return (f"{plural(count, 'request')} you stopped before {'its reply' if one else 'their replies'} began "
            f"{'is' if one else 'are'} counted: {'its' if one else 'their'} input tokens (~{input_tokens:,}) are "
            "an estimate of what was sent, no usage came")


class CostFigures:
    """/cost's figures laid out for the width the console gives them (see `render_cost`)."""

    def __init__(self, title: str, cols: list[str], rows: list[tuple[str, list[str]]]) -> None:
        self.title, self.cols, self.rows = title, cols, rows

    def table(self) -> Table:
        t = Table(title=self.title, show_header=True)
        for col in self.cols:
            t.add_column(col, justify="right", no_wrap=True)
        t.add_column("kind · model", justify="left", no_wrap=True)
        for key, values in self.rows:
            t.add_row(*values, key, style="bold" if key == "total" else None)
        return t

    def stacked(self, pairs: int) -> Group:
        """Each `kind · model` (and the total) as a heading over `pairs` label/value pairs a line;
        the order puts requests and cost first, then input and output, then the cache's share."""
        order = ["requests", "cost", "input", "output", "cache hit", "cache miss", "cache write"]
        shown = [c for c in order if c in self.cols]
        parts: list[Any] = [Text(self.title, style="italic")]
        label_w = max(len(c) for c in shown)
        value_w = max(len(v) for _, values in self.rows for v in values)  # the same columns under every heading
        for key, values in self.rows:
            by_col = dict(zip(self.cols, values, strict=True))
            parts.append(Text(key, style="bold"))
            grid = Table.grid(padding=(0, 1))
            for _ in range(pairs):  # an indent (a gap between pairs), a label, its value
                grid.add_column(width=1)
                grid.add_column(no_wrap=True, width=label_w)
                grid.add_column(justify="right", no_wrap=True, width=value_w)
            for i in range(0, len(shown), pairs):
                cells = [x for c in shown[i:i + pairs] for x in ("", c, by_col[c])]
                grid.add_row(*cells, *[""] * (3 * pairs - len(cells)))
            parts.append(grid)
        return Group(*parts)

    def __rich_console__(self, console: Console, options: ConsoleOptions) -> Iterator[Any]:
        width = options.max_width
        for layout in (self.table(), self.stacked(2)):
            if Measurement.get(console, options.update_width(10**4), layout).maximum <= width:
                yield layout
                return
        yield self.stacked(1)


def render_plan(items: list[TodoItem]) -> Text:
    marks = {"pending": ("☐", "white"), "in_progress": ("◐", "yellow"), "done": ("☑", "green")}
    out = Text()
    for i in items:
        sym, style = marks[i.status]
        out.append(f"  {sym} {i.content}\n", style=style + (" strike" if i.status == "done" else ""))
    return out


@command("context", "what fills the context window (by kind and layer state), free space, the compaction buffer", takes_args=False)
async def _context(s: AgentSession, args: str, c: Console) -> None:
    await prepare(s)  # before this run's first request: the system prompt and tools it will send, MCP's too
    c.print(render_context(picture(s), c.width))


@command("cost", "tokens (cache hit / miss / write) and money so far, and what compaction saved", takes_args=False)
async def _cost(s: AgentSession, args: str, c: Console) -> None:
    from . import history_view

    whole, run = cost_report(s, whole=True), cost_report(s)
    compactions = len(history_view.compactions(history_view.all_boundaries(s.store)))  # as /status counts them
    c.print(render_cost(whole, compactions=compactions, model_priced=s.info.has_prices, model=s.info.name))
    if sum(whole.requests.values()) != sum(run.requests.values()):  # by the total's rule (cost_words)
        n = sum(run.requests.values())
        c.print(f"this run (since the session was resumed): {plural(n, 'request')}, "
                + (cost_words(run) if n else "nothing spent"))


@command("plan", "the current plan (todo list), kept across compactions", takes_args=False)
async def _plan(s: AgentSession, args: str, c: Console) -> None:
    items = s.ext.plan.items
    c.print(render_plan(items) if items else "no plan yet (the model writes one with todo_write)")


def due_words(used: int, threshold: int, due: int | None, paused: bool) -> str:
    """What /status says of the next automatic compaction. Past the threshold with decisions priced
    (`due`: the hard limit, `Schedule.hard_limit`), a compaction comes where it pays, at that limit at
    the latest: "0 tokens until auto-compaction" was said of a 5K window's context at 98%, which went
    on growing, while it was not the threshold that would bring one."""
    if paused:
        return "auto-compaction paused"
    if due is not None and used > threshold and due > threshold:
        return f"past the threshold: auto-compaction comes when it pays, at {due:,} tokens at the latest"
    return f"{plural(max(0, threshold - used), 'token', grouped=True)} until auto-compaction"
