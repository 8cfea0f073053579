"""The analyzer's tables: which columns a width shows whole, and what each cell says of a strategy's
figures (report.py prints them, one table per transcript and the total)."""

from __future__ import annotations

from collections.abc import Sequence

from rich import box
from rich.console import Console
from rich.measure import Measurement
from rich.table import Table
from rich.text import Text

from ..context.plumbing.events import LAYER_NAMES
from .metrics import Metrics
from .report_notes import MARK, NO_SUMMARIES, PARTS, not_comparable

LAYER_LABELS = {**{name: f"L{i}" for i, name in enumerate(LAYER_NAMES, 1)}, "masking": "mask",
                "prune": "prune", "output-mask": "out-mask", "truncate": "trunc"}


def human(n: float) -> str:
    n = float(n)
    if abs(n) >= 1e6:
        return f"{n / 1e6:.1f}M"
    if abs(n) >= 1e3:
        return f"{n / 1e3:.1f}K"
    return f"{n:.0f}"


def pct(x: float | None) -> str:
    return "–" if x is None else f"{100 * x:.0f}%"


def freed_text(m: Metrics) -> str:
    view = [f"{LAYER_LABELS.get(k, k)} {human(v)}" for k, v in m.freed_per_request.items() if v >= 1]
    parts = [" ".join(view) + "/req"] if view else []
    if m.compaction_freed:
        label = "L5" if m.strategy == "ours" else "cut" if m.strategy in NO_SUMMARIES else "sum"  # no model wrote it
        parts.append(f"{label} {human(m.compaction_freed)}")
    return "; ".join(parts) or "–"


def retention_text(m: Metrics) -> str:
    if m.retention_users is None:
        return "–"
    return f"{pct(m.retention_users)}/{pct(m.retention_files)}/{pct(m.retention_last)}"


def parts_text(m: Metrics) -> str:
    """The cost parts in dollars, in `COST_PARTS` order: hit / miss / output / summary / notes / reread."""
    return " ".join(f"{v:.2f}" for v in m.cost_parts.values())


def rebuild_text(m: Metrics) -> str:
    if not m.rebuild_miss_tokens:
        return "–"
    return f"{human(m.rebuild_miss_tokens)} ({pct(m.rebuild_miss_tokens / m.miss_tokens if m.miss_tokens else 0)})"


COLUMNS = ("strategy", "req", "peak", "mean", "over", "compact", "cached", "cost", PARTS, "recall", "edit", "stalls",
           "rebuild miss", "side", "freed (view/req; compaction)", "kept u/f/last")
NARROW = ("strategy", "peak", "over", "compact", "cost", PARTS, "recall", "stalls", "kept u/f/last")
SMALL = ("strategy", "peak", "over", "compact", "cost", "recall", "stalls", "kept u/f/last")  # 80 columns


def columns_for(console: Console, row_sets: Sequence[Sequence[Metrics]]) -> tuple[str, ...]:
    """The most columns every table of `row_sets` shows whole at the console's width: all (some 170
    columns), the cost's parts without the side columns (some 110), else the ones that decide the
    comparison (a file or a pipe gets 80 columns). Measured, not told by the width alone: the cells
    are as wide as their figures (a `335 (2 fail)` compaction count cut the cost to `$0.7…` at 120)."""
    unbounded = console.options.update_width(1 << 20)  # `console.measure` caps at the width it is asked about
    for columns in (COLUMNS, NARROW):
        if all(Measurement.get(console, unbounded, table("", rows, columns=columns)).minimum <= console.width
               for rows in row_sets):
            return columns
    return SMALL


def recall_text(m: Metrics) -> str:
    return f"{100 * m.recall:.1f}%" if m.refs_needed else "–"


def edit_text(m: Metrics) -> str:
    return f"{100 * m.edit_ready:.0f}%" if m.edits_needed else "–"


def table(title: str, rows: Sequence[Metrics], caption: str = "", columns: Sequence[str] = COLUMNS) -> Table:
    """One row per strategy; a narrow terminal gets the columns that decide the comparison."""
    unfair = not_comparable(rows)  # more requests over the window than ours: marked, never ranked
    small = columns == SMALL  # 80 columns: no room for rules between the columns, nor padding beside them
    t = Table(title=title or None, caption=caption or None, title_justify="left", caption_justify="left", pad_edge=False,
              box=box.SIMPLE_HEAD if small else box.HEAVY_HEAD, show_edge=not small, collapse_padding=small,
              padding=(0, 0) if small else (0, 1))
    shown = [_cells(m, unfair) for m in rows]
    for c in columns:
        whole = c != "freed (view/req; compaction)"  # the one column that wraps; the others keep their width
        widest = max([Text.from_markup(c).cell_len, *(Text.from_markup(cells[c]).cell_len for cells in shown)])
        t.add_column(c, justify="left" if c in ("strategy", "freed (view/req; compaction)") else "right",
                     no_wrap=whole, min_width=widest if whole else None)
    for cells in shown:
        t.add_row(*(cells[c] for c in columns))
    return t


def _cells(m: Metrics, unfair: frozenset[str]) -> dict[str, str]:
    """A row's cells by column, in markup."""
    return {
        "strategy": f"[bold]{m.strategy}[/]" if m.strategy == "ours" else m.strategy + (MARK if m.strategy in unfair else ""),
        "req": str(m.requests), "peak": human(m.peak), "mean": human(m.mean),
        "over": f"[bold red]{m.over_window}[/]" if m.over_window else "0",
        "compact": str(m.compactions) + (f" ({m.failed_compactions} fail)" if m.failed_compactions else ""),
        "input": human(m.input_tokens), "cached": pct(m.cache_share), "output": human(m.output_tokens),
        "cost": f"${m.cost:.3f}", PARTS: parts_text(m), "rebuild miss": rebuild_text(m),
        "side": pct(m.summary_share), "freed (view/req; compaction)": freed_text(m),
        "kept u/f/last": retention_text(m), "recall": recall_text(m), "edit": edit_text(m),
        "stalls": str(m.stalls),
    }
