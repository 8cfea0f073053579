"""`--plot FILE`: context tokens per request, one line per strategy, compactions marked, the window drawn.

SVG is written by hand (no plotting dependency): a heading, a shared legend, a table of the totals
(cost and its parts, requests over the window, compactions), then one panel per transcript of two
or more requests, stacked. A `.png` name uses matplotlib when it is installed, with a smaller table
of the totals (cost, recall, stalls, over, compactions, peak). Lines are drawn in a fixed order with
ours last, so it is never hidden under a rival. Each strategy has its own colour, dark enough to
read on white (3:1 contrast at least, as WCAG asks of lines in a chart). A panel is titled with its
transcript's path relative to the folder all of them share (named in the heading), not to
wherever the command ran, and a path too long for the panel loses its middle. A chart made with
`--set` or `--prices` says them under its heading, as the report does under its tables: its
figures are not the defaults'; so does every chart say who wrote the summaries and how many
transcripts were replayed on filler standing for redacted text.
"""

from __future__ import annotations

import importlib.util
import os
import textwrap
from html import escape
from pathlib import Path
from typing import Any

from ._words import plural
from .analysis import FAIL_NOTE, Analysis, AnalyzeError, printable, recall_note, transcripts_counted
from .given_settings import describe
from .metrics import Metrics
from .report_notes import MARK, mark_note, not_comparable, summaries_line
from .simulate import StrategyRun, TranscriptRun

COLORS = {"ours": "#d62728", "none": "#7f7f7f", "seed000": "#9467bd", "seed000-submit": "#8c564b", "codex": "#1f77b4",
          "masking": "#2ca02c", "opencode": "#d95f02", "gemini": "#138d90", "cline": "#7a7a00",
          "anthropic-clear": "#c2185b"}
WIDTH, PANEL_H, LEFT, RIGHT, TOP, BOTTOM = 960, 230, 70, 20, 34, 34
TITLE_CHARS = 100  # what a panel's bold 13px title holds across its width
CAPTION_CHARS = 140  # what a line of 11px text holds across the chart
SUFFIXES = (".svg", ".png")


def middle_clip(path: str, n: int) -> str:
    """`a/b/…/y/z.jsonl`: the first folder and as much of the end as fits `n` characters."""
    if len(path) <= n:
        return path
    parts = path.split("/")
    head, tail = parts[0], [parts[-1]]
    for part in reversed(parts[1:-1]):
        if len(head) + len("/…/") + len("/".join([part, *tail])) > n:
            break
        tail.insert(0, part)
    clipped = f"{head}/…/{'/'.join(tail)}"
    return clipped if len(clipped) <= n else "…" + path[-(n - 1):]


def titles_and_folder(paths: list[Path]) -> tuple[list[str], str]:
    """Each transcript's path relative to the folder they all share, and that folder (`~` for home)."""
    if not paths:
        return [], ""
    full = [p.resolve() for p in paths]
    common = Path(os.path.commonpath(full)) if len(full) > 1 else full[0].parent
    if common in full:  # one file given twice
        common = common.parent
    home = Path.home()
    folder = f"~/{common.relative_to(home)}" if common.is_relative_to(home) and common != home else str(common)
    # Control characters as escapes: in an SVG they are no XML (ui/visible.py, analysis.printable).
    return [middle_clip(printable(p.relative_to(common).as_posix()), TITLE_CHARS) for p in full], printable(folder)


def _order(runs: list[StrategyRun]) -> list[StrategyRun]:
    return sorted(runs, key=lambda r: r.strategy == "ours")


def _ticks(top: float) -> list[int]:
    step = 10 ** max(0, len(str(int(top))) - 1)
    for mult in (1, 2, 5, 10):
        if top / (step * mult) <= 6:
            step *= mult
            break
    return list(range(0, int(top) + 1, step))


def _panel(run: TranscriptRun, y0: float, window: int, title: str) -> list[str]:
    out: list[str] = []
    plot_w, plot_h = WIDTH - LEFT - RIGHT, PANEL_H - TOP - BOTTOM
    n = max((len(r.series) for r in run.runs), default=1)
    top = max([window, *(max(r.series, default=0) for r in run.runs)]) * 1.05

    def x(i: int) -> float:
        return LEFT + (plot_w * i / max(1, n - 1))

    def y(v: float) -> float:
        return y0 + TOP + plot_h * (1 - v / top)

    out.append(f'<text x="{LEFT}" y="{y0 + 20}" font-size="13" font-weight="bold">{escape(title)}</text>')
    out.append(f'<rect x="{LEFT}" y="{y0 + TOP}" width="{plot_w}" height="{plot_h}" fill="none" stroke="#ccc"/>')
    for t in _ticks(top):
        out.append(f'<line x1="{LEFT}" x2="{LEFT + plot_w}" y1="{y(t):.1f}" y2="{y(t):.1f}" stroke="#eee"/>')
        out.append(f'<text x="{LEFT - 6}" y="{y(t) + 4:.1f}" font-size="10" text-anchor="end">{t // 1000}K</text>')
    out.append(f'<line x1="{LEFT}" x2="{LEFT + plot_w}" y1="{y(window):.1f}" y2="{y(window):.1f}" '
               f'stroke="#000" stroke-dasharray="6 4"/>')
    out.append(f'<text x="{LEFT + plot_w - 4}" y="{y(window) - 4:.1f}" font-size="10" text-anchor="end">'
               f'window {window:,}</text>')
    out.append(f'<text x="{LEFT + plot_w / 2}" y="{y0 + PANEL_H - 6}" font-size="10" text-anchor="middle">'
               f'request</text>')
    mid = y0 + TOP + plot_h / 2
    out.append(f'<text x="14" y="{mid:.1f}" font-size="10" text-anchor="middle" '
               f'transform="rotate(-90 14 {mid:.1f})">context tokens</text>')
    for i in _ticks(max(1, n - 1)):
        out.append(f'<text x="{x(i):.1f}" y="{y0 + TOP + plot_h + 13}" font-size="10" text-anchor="middle">{i}</text>')
    for r in _order(run.runs):
        color = COLORS.get(r.strategy, "#333")
        width = 2.2 if r.strategy == "ours" else 1.2
        pts = " ".join(f"{x(i):.1f},{y(v):.1f}" for i, v in enumerate(r.series))
        out.append(f'<polyline fill="none" stroke="{color}" stroke-width="{width}" points="{pts}"/>')
        for i in r.compaction_points:
            if i < len(r.series):
                out.append(f'<circle cx="{x(i):.1f}" cy="{y(r.series[i]):.1f}" r="3" fill="{color}"/>')
    return out


def drawn(runs: list[TranscriptRun], titles: list[str]) -> list[tuple[TranscriptRun, str]]:
    """The panels worth drawing: a transcript of a single request has no line to show."""
    return [(r, t) for r, t in zip(runs, titles, strict=True) if r.points > 1]


def _failed(totals: list[Metrics] | None) -> bool:
    return any(m.failed_compactions for m in totals or [])


#: The totals a .png shows above its panels: the figures that decide the comparison (the .svg has the cost's parts too).
PNG_COLUMNS = ("strategy", "cost", "recall", "stalls", "over", "compactions", "peak")


def totals_cells(m: Metrics, unfair: frozenset[str] = frozenset()) -> dict[str, str]:
    """A strategy's totals as the chart writes them, the .svg's table and the .png's alike; a row of
    `unfair` (`not_comparable`) is marked as the terminal's is."""
    return {"strategy": m.strategy + (MARK if m.strategy in unfair else ""), "cost": f"${m.cost:.3f}",
            "recall": f"{100 * m.recall:.1f}%" if m.refs_needed else "–",  # nothing needed: not measured
            "stalls": str(m.stalls), "over": str(m.over_window),
            "compactions": str(m.compactions) + (f" ({m.failed_compactions} fail)" if m.failed_compactions else ""),
            "peak": f"{m.peak / 1000:.1f}K"}


def totals_notes(totals: list[Metrics], redacted: bool) -> list[str]:
    """The lines under the chart's totals: what a marked name, "(1 fail)" and recall "–" are, when a row shows one."""
    notes = [mark_note(totals)] if not_comparable(totals) else []
    notes += [f"compactions: {FAIL_NOTE}"] if _failed(totals) else []
    return notes + ([f"recall: {dash}"] if (dash := recall_note(totals, redacted)) else [])


def _totals_height(totals: list[Metrics] | None) -> int:
    """The totals table's height: its rows, and the lines on "(N fail)" and recall "–" when a row shows one."""
    return 44 + 16 * (len(totals) + len(totals_notes(totals, False))) if totals else 0


def totals_title(runs: list[TranscriptRun]) -> str:
    """`Totals over 24 transcripts (3 of them Claude Code compaction requests, not sessions)`, as
    the terminal's totals table is titled (the heading has no room for it)."""
    return f"Totals over {transcripts_counted(runs)}"


def _totals_panel(totals: list[Metrics], y0: float, redacted: bool = False, title: str = "Totals") -> list[str]:
    """A small table of the totals: cost with its parts (re-reads included), recall and stalls,
    requests over the window, compactions; under it, what "(1 fail)" and recall "–" mean when a row
    shows one (as under the terminal's tables: the chart showed them without a word). `redacted`:
    some transcript was replayed on filler standing for redacted text."""
    cols = [("strategy", 0), ("cost", 120), ("hit", 180), ("miss", 230), ("output", 280), ("summary", 335),
            ("notes", 395), ("reread", 445), ("recall", 500), ("stalls", 550), ("over", 600),
            ("compactions", 645), ("peak", 735)]
    out = [f'<text x="{LEFT}" y="{y0 + 14}" font-size="12" font-weight="bold">{escape(title)}</text>']
    row = y0 + 32
    for name, dx in cols:
        out.append(f'<text x="{LEFT + dx}" y="{row}" font-size="11" fill="#555">{name}</text>')
    unfair = not_comparable(totals)
    for m in totals:
        row += 16
        said = totals_cells(m, unfair)
        cells = [said["strategy"], said["cost"], *(f"{v:.3f}" for v in m.cost_parts.values()),
                 *(said[c] for c in ("recall", "stalls", "over", "compactions", "peak"))]
        weight = ' font-weight="bold"' if m.strategy == "ours" else ""
        for (_, dx), cell in zip(cols, cells, strict=True):
            out.append(f'<text x="{LEFT + dx}" y="{row}" font-size="11"{weight} '
                       f'fill="{COLORS.get(m.strategy, "#333") if dx == 0 else "#000"}">{escape(cell)}</text>')
    for note in totals_notes(totals, redacted):
        row += 16
        out.append(f'<text x="{LEFT}" y="{row}" font-size="11" fill="#555">{escape(note)}</text>')
    return out


def caption_lines(analysis: Analysis) -> list[str]:
    """What the figures were made with, under the chart's heading, as the report says it under its
    tables: who wrote the summaries (the stand-in, or `--model`'s), how many transcripts were
    replayed on filler standing for redacted text, the `--set` values (`ours with stall_wait_usd=0
    (the default is 0.02)`) and the `--prices` figures. A chart passed on alone left out the first two."""
    said = [summaries_line(analysis.summary_model)]
    if filler := sum(1 for run in analysis.runs if run.transcript.filler_chars):
        said.append(f"{filler:,} of {plural(len(analysis.runs), 'transcript')} replayed on deterministic filler "
                    "standing for redacted text")
    said += [describe(analysis.settings)] if analysis.settings else []
    if analysis.given_prices:
        said.append(f"{analysis.price_label}: {analysis.price_figures()}")
    return [line for part in said for line in textwrap.wrap(part, CAPTION_CHARS)]


def svg(runs: list[TranscriptRun], window: int, titles: list[str], totals: list[Metrics] | None = None,
        heading: str = "", redacted: bool = False, caption: list[str] | None = None) -> str:
    """Heading, legend, the caption's lines (`caption_lines`), the totals table (when given), then one
    panel per transcript of 2+ requests."""
    panels = drawn(runs, titles)
    totals_h = _totals_height(totals)
    caption = caption or []
    top = 72 + 16 * len(caption)
    height = top + totals_h + PANEL_H * len(panels) + (20 if len(panels) < len(runs) else 0)
    body = ['<?xml version="1.0" encoding="UTF-8"?>',
            f'<svg xmlns="http://www.w3.org/2000/svg" width="{WIDTH}" height="{height}" '
            f'viewBox="0 0 {WIDTH} {height}" font-family="sans-serif">',
            f'<rect width="{WIDTH}" height="{height}" fill="#fff"/>',
            f'<text x="{LEFT}" y="20" font-size="15" font-weight="bold">'
            f'{escape(heading or f"Context tokens per request, window {window:,}")}</text>']
    names = [r.strategy for r in runs[0].runs] if runs else []
    lx = LEFT
    for name in names:
        body.append(f'<line x1="{lx}" x2="{lx + 18}" y1="42" y2="42" stroke="{COLORS.get(name, "#333")}" '
                    f'stroke-width="{2.2 if name == "ours" else 1.5}"/>')
        body.append(f'<text x="{lx + 22}" y="46" font-size="12">{escape(name)}</text>')
        lx += 30 + 7 * len(name) + 14
    body.append(f'<text x="{LEFT}" y="62" font-size="11" fill="#555">● compaction · dashed: the window · '
                'y: context tokens of each request · x: request number</text>')
    for k, line in enumerate(caption):
        body.append(f'<text x="{LEFT}" y="{78 + 16 * k}" font-size="11">{escape(line)}</text>')
    if totals:
        body += _totals_panel(totals, top, redacted, totals_title(runs) if len(runs) > 1 else "Totals")
    for k, (run, title) in enumerate(panels):
        body += _panel(run, top + totals_h + k * PANEL_H, window, title)
    if len(panels) < len(runs):
        body.append(f'<text x="{LEFT}" y="{height - 6}" font-size="11" fill="#555">'
                    f'{plural(len(runs) - len(panels), "single-request transcript")} not drawn</text>')
    body.append("</svg>")
    return "\n".join(body) + "\n"


def png_figure(runs: list[TranscriptRun], window: int, titles: list[str], heading: str,
               totals: list[Metrics] | None = None, redacted: bool = False, caption: list[str] | None = None) -> Any:
    """The .png's matplotlib figure: the totals (cost, recall, stalls, over, compactions, peak; a
    row per strategy, ours in bold) as a table above one panel per transcript. Without it a .png
    showed lines and no figure of what they cost, where the .svg has a table of the totals. The
    caption's lines (`caption_lines`) go under the heading."""
    import matplotlib  # pyright: ignore[reportMissingImports]  # optional: only a .png plot needs it

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt  # pyright: ignore[reportMissingImports]

    panels = drawn(runs, titles) or list(zip(runs, titles, strict=True))
    notes = totals_notes(totals, redacted) if totals else []
    table_h = 0.22 * (len(totals) + 1) + 0.2 * len(notes) + 0.3 if totals else 0.0
    caption = caption or []
    height = 2.4 * len(panels) + 0.6 + 0.2 * len(caption) + table_h
    fig = plt.figure(figsize=(10, height))
    grid = fig.add_gridspec(len(panels) + bool(totals), 1,
                            height_ratios=([table_h] if totals else []) + [2.4] * len(panels))
    fig.suptitle("\n".join([heading, *caption]))
    if totals:
        ax = fig.add_subplot(grid[0])
        ax.axis("off")
        cells = [[totals_cells(m, not_comparable(totals))[c] for c in PNG_COLUMNS] for m in totals]
        shown = ax.table(cellText=cells, colLabels=list(PNG_COLUMNS), loc="upper left", cellLoc="right",
                         colLoc="right", edges="horizontal")
        shown.auto_set_font_size(False)
        shown.set_fontsize(8)
        for (row, col), cell in shown.get_celld().items():
            if row and col == 0:
                cell.get_text().set_color(COLORS.get(totals[row - 1].strategy, "#333"))
                cell.get_text().set_horizontalalignment("left")
            if row and totals[row - 1].strategy == "ours":
                cell.get_text().set_fontweight("bold")
        for k, note in enumerate(notes):
            ax.text(0, -0.02 - 0.12 * k, note, transform=ax.transAxes, fontsize=8, color="#555", va="top")
        if len(runs) > 1:
            ax.set_title(totals_title(runs), loc="left", fontsize=9)
    for k, (run, title) in enumerate(panels):
        ax = fig.add_subplot(grid[k + bool(totals)])
        ax.set_ylabel("context tokens")
        for r in _order(run.runs):
            ax.plot(r.series, color=COLORS.get(r.strategy), lw=2 if r.strategy == "ours" else 1, label=r.strategy)
            ax.plot(r.compaction_points, [r.series[i] for i in r.compaction_points if i < len(r.series)], "o",
                    color=COLORS.get(r.strategy), ms=3)
        ax.axhline(window, color="k", ls="--", lw=1)
        ax.set_title(title, loc="left", fontsize=10)
        if k == 0:
            ax.legend(ncol=7, fontsize=8, loc="upper left")
    fig.tight_layout(rect=(0, 0, 1, 1 - (0.4 + 0.2 * len(caption)) / height))  # the heading's room
    return fig


def plot_problem(path: Path) -> str | None:
    """Why the chart cannot be written at `path`, found before the replay (which can take minutes,
    and whose figures would be lost with the chart), or None. Opening it for writing is the only sure
    test (a folder without write permission, a read-only disk, a name that is a folder); a file this
    creates is removed again, one that was there is left as it was."""
    if path.suffix.lower() not in SUFFIXES:
        return "name the chart .svg (or .png, with matplotlib)"
    if path.suffix.lower() == ".png" and importlib.util.find_spec("matplotlib") is None:
        return "a .png chart needs matplotlib (pip install matplotlib); or name it .svg"
    if not (folder := path.resolve().parent).is_dir():
        return f"the folder {folder} does not exist"
    existed = os.path.lexists(path)
    if existed and not path.is_file():  # a folder, or a pipe that opening would wait on
        return "it names something that is not a file"
    try:
        path.open("ab").close()  # opened to append: what is there stays as it was
    except OSError as e:
        return f"it cannot be written ({e.strerror or e})"
    if not existed:
        path.unlink(missing_ok=True)
    return None


def write_plot(analysis: Analysis, path: Path) -> Path:
    """Write the chart for an `Analysis`: `.svg`, or `.png` with matplotlib (the command line refuses
    any other name before the replay)."""
    titles, folder = titles_and_folder([r.transcript.source for r in analysis.runs])
    heading = (f"Context tokens per request: {plural(len(analysis.runs), 'transcript')}, window {analysis.window:,}, "
               f"{analysis.price_label}, in {middle_clip(folder, 40)}")
    if path.suffix.lower() not in SUFFIXES:
        raise AnalyzeError(f"--plot {path}: name the chart .svg (or .png, with matplotlib)")
    totals = analysis.totals() if len(analysis.runs) > 1 else analysis.metrics(analysis.runs[0])
    redacted = any(r.transcript.filler_chars for r in analysis.runs)
    caption = caption_lines(analysis)
    if path.suffix.lower() == ".png":
        try:
            png_figure(analysis.runs, analysis.window, titles, heading, totals, redacted, caption).savefig(path, dpi=110)
        except ImportError:
            raise AnalyzeError("a .png chart needs matplotlib; name the file .svg instead") from None
        return path
    path.write_text(svg(analysis.runs, analysis.window, titles, totals, heading, redacted, caption), encoding="utf-8")
    return path
