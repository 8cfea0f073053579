"""`compact-agent analyze`: find transcripts, replay them through every strategy, show the figures.

The terminal gets one table per transcript (a row per strategy) and a total table, a file or a pipe
the 80-column one; `--json` gives scripts the same figures (report_json.py); `--plot` writes a
chart. Everything the user can get wrong (a missing path, an unknown strategy, no transcript found,
a model without a key, or one that cannot be used) ends in one line.
"""

from __future__ import annotations

import asyncio
import io
import os
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from rich.console import Console
from rich.text import Text

from ..models import PRICING
from ._words import plural
from .analysis import Analysis, AnalyzeError, label, printable, transcripts_counted
from .baselines import STRATEGIES, factories
from .batch import Skipped, Summaries, replay_files
from .finding import copies_lines, find_files, plainly_not, skip_lines
from .given_prices import parse_given, price_list
from .given_settings import describe
from .metrics import Metrics
from .ours import ignored_variables
from .report_json import to_json
from .report_notes import (
    NO_SUMMARIES,
    footer_notes,
    max_output_line,
    not_comparable,
    summaries_line,
    warnings_summary,
    window_warning,
)
from .report_table import columns_for, human, table
from .simulate import Summarize, TranscriptRun

DEFAULT_WINDOW = 64_000
DEMO_WINDOW = 20_000


async def analyze(paths: Sequence[Path], *, window: int = DEFAULT_WINDOW, strategies: Sequence[str] | None = None,
                  pricing: str = "deepseek", summarize: Summarize | None = None,
                  settings: dict[str, Any] | None = None, prices: str | None = None) -> Analysis:
    """Replay every transcript under `paths` (found by `finding.py`; see `batch.py`: streamed to
    workers, memory flat); `settings`: the values `--set` gave ours (given_settings.py); `prices`: what
    `--prices` gave, in place of the named pricing's figures (given_prices.py)."""
    if pricing not in PRICING:
        from ..setting_names import closest

        guess = f"; did you mean {close}?" if (close := closest(pricing, list(PRICING))) else ""
        raise AnalyzeError(f"unknown pricing {pricing!r}{guess} (choose from {', '.join(PRICING)})")
    try:  # before any replay, as a bad --pricing
        figures = None if prices is None else parse_given(prices, pricing)
    except ValueError as e:
        raise AnalyzeError(str(e)) from None
    if (case := next((n for n in strategies or [] if n not in STRATEGIES), "")).lower() in STRATEGIES:  # `-s OURS`
        raise AnalyzeError(f"unknown strategy {case!r}; did you mean {case.lower()}? (choose from {', '.join(STRATEGIES)})")
    try:
        chosen = factories(strategies)
        found = find_files(paths)
    except ValueError as e:
        raise AnalyzeError(str(e)) from None
    analysis = Analysis(window, pricing, price_list(pricing, figures), given_prices=figures is not None,
                        skipped=found.notes,
                        plain=plainly_not(found.files, paths), settings=dict(settings or {}))
    files = found.skipped  # the paths the notes stand for: one note says all of compact-history/
    # The paths the first note stands for: all the search skipped when it wrote one note (the one on
    # compact-history/ is its last), else one.
    first = found.skipped if len(found.notes) == 1 else 1
    bug = ""  # the note of the first file whose replay an error of the analyzer stopped
    for result in await replay_files(found.files, list(chosen), window=window, pricing=pricing, summarize=summarize,
                                     skipped=found.skipped, settings=settings, figures=figures):
        if isinstance(result, Skipped):
            analysis.skipped.append(result.note)
            bug = bug or (result.note if result.ours else "")
            files += 1
        else:
            analysis.runs.append(result)
    analysis.failed_ours = bool(bug)
    if not analysis.runs and bug:  # said as beside other files' figures, not as "no transcripts found"
        raise AnalyzeError(bug + (f" (and {files - 1:,} more skipped)" if files > 1 else ""), exit_code=1)
    if not analysis.runs:
        from ..session.sessions_folder import hint  # `analyze .` in a project: where its own sessions are

        raise AnalyzeError(nothing_found(analysis.skipped, files - first) + hint(paths))
    return analysis


def nothing_found(skipped: Sequence[str], more_paths: int | None = None) -> str:
    """One line when no transcript was found, saying why when something was skipped (the notes
    are not printed without figures): the first skipped path's reason, and how many more paths were
    skipped (`more_paths`; by default one a note). Counting the notes said "(and 1 more skipped)"
    for forty compaction archives, which have one note."""
    known = ("Claude Code or Codex JSONL, mini-swe-agent, SWE-agent, OpenAI or Anthropic chat JSON, Cline or "
             "Roo Code tasks, Cline SDK sessions, Gemini CLI chats or compact-agent sessions")
    if not skipped:
        return f"no transcripts found ({known})"
    more_paths = len(skipped) - 1 if more_paths is None else more_paths
    more = f" (and {more_paths:,} more skipped)" if more_paths > 0 else ""
    first = skipped[0].removeprefix("skipped ")
    # The formats read where one could be wrong: not after a file read but empty of responses, or too large.
    formats = f"; the analyzer reads {known}" if more or first.endswith("not a transcript") else ""
    return f"no transcripts found: {first}{more}{formats}"


# -- output ------------------------------------------------------------------------------------------
def fit_caption(run: TranscriptRun) -> str:
    """The transcript's format and requests, and how its sizes were measured: the fit of the
    recorded usage, or (no usage recorded, or none that follows the messages) the note saying the
    sizes are our estimate, without a formula of 1.00 × estimate + 0 that says the same. A fit on
    one request passes through it: its "0.0% error" read as a perfect fit (Claude Code's compaction
    request, whose overhead is then capped), so it says what it was fitted on instead."""
    tm = run.tm
    head = (f"{run.transcript.format}, " + ("the compaction request of the session beside it, "
                                            if run.transcript.compaction_request else "")
            + ("a subagent's conversation, " if run.transcript.subagent else "")
            + plural(run.points, "recorded request"))
    notes = "".join(f"; {n}" for n in tm.notes)
    if tm.error_mean is None:
        return head + notes
    err = (f", fit error {100 * tm.error_mean:.1f}% mean / {100 * (tm.error_max or 0):.1f}% max" if tm.samples > 1
           else ", fitted on one request alone (no fit error to report)")
    return f"{head}; size = {tm.ratio:.2f} × estimate + {human(tm.overhead)} overhead{err}{notes}"


def print_tables(analysis: Analysis, console: Console, per_transcript: bool = True) -> None:
    each = [analysis.metrics(run) for run in analysis.runs] if per_transcript else []
    totals = analysis.totals() if len(analysis.runs) > 1 or not per_transcript else None
    columns = columns_for(console, [*each, *([totals] if totals is not None else [])])
    shown: list[Metrics] = []  # every row printed, for the notes on what "–" and "(1 fail)" are
    unfair = False  # a row is marked (MARK): not comparable with ours, or over the window without it
    redacted = False  # a row showing recall "–" is of a transcript replayed on filler for redacted text
    if per_transcript:
        for run, rows in zip(analysis.runs, each, strict=True):
            console.print(printable(label(run.transcript.source)), soft_wrap=True, markup=False)  # a path: never split by us
            console.print(table("", rows, fit_caption(run), columns))
            for warning in run.transcript.warnings:
                console.print(Text.assemble(("warning: ", "yellow"), printable(warning)))
            shown += rows
            unfair |= bool(not_comparable(rows))
            redacted |= bool(run.transcript.filler_chars) and any(not m.refs_needed for m in rows)
    if totals is not None:
        console.print(table(f"Total over {transcripts_counted(analysis.runs)}", totals, columns=columns))
        shown += totals
        unfair |= bool(not_comparable(totals))
        redacted |= any(not m.refs_needed for m in totals) and any(r.transcript.filler_chars for r in analysis.runs)
    if not per_transcript and (said := warnings_summary(analysis)):
        console.print(Text.assemble(("warning: ", "yellow"), said))
    if said := window_warning(analysis):
        console.print(Text.assemble(("warning: ", "yellow"), said))
    notes = footer_notes(analysis, columns, shown, redacted=redacted, marked=unfair,
                         captions=analysis.runs if per_transcript else [])
    if {m.strategy for m in shown} - NO_SUMMARIES:  # no line on summaries where no strategy shown writes one
        console.print(summaries_line(analysis.summary_model), style="dim", markup=False)  # a model's name as given
    if analysis.settings:  # said once: figures of ours with another value are no default's
        console.print(describe(analysis.settings), style="dim", markup=False)
    console.print(f"[dim]window {analysis.window:,} tokens · {analysis.price_label} ({analysis.price_figures()}) · "
                  f"{max_output_line(analysis)} · " + " · ".join(notes) + "[/]")


#: The exit status of a run stopped by Ctrl-C: 128 + SIGINT, as a shell reports it.
EXIT_INTERRUPTED = 130


def run_cli(paths: Sequence[Path], *, window: int, strategies: Sequence[str] | None, pricing: str, as_json: bool,
            plot: Path | None, model: str | None, totals_only: bool = False, base_url: str | None = None,
            api_key: str | None = None, limits: dict[str, Any] | None = None,
            settings: dict[str, Any] | None = None, prices: str | None = None) -> int:
    """The `analyze` command; returns the exit code, reports problems in one line on stderr (a
    summary model that fails ends the run: figures built on summaries never written would mislead).
    Ctrl-C ends it at once (the workers with it, `batch._stop_now`) with one line, status 130."""
    try:
        return _run_cli(paths, window=window, strategies=strategies, pricing=pricing, as_json=as_json, plot=plot,
                        model=model, totals_only=totals_only, base_url=base_url, api_key=api_key, limits=limits,
                        settings=settings, prices=prices)
    except KeyboardInterrupt:
        return failed("interrupted", EXIT_INTERRUPTED, as_json)


def failed(message: str, code: int, as_json: bool) -> int:
    """Say why the run ends, in one line on stderr; with `--json` also as one JSON object on stdout,
    `{"error": "..."}` (a script reading stdout got nothing to parse), secrets hidden. Returns `code`."""
    from ..cli_help import json_error

    sys.stderr.write(f"compact-agent: {printable(message)}\n")
    if as_json:
        sys.stdout.write(json_error(message))
    return code


def _run_cli(paths: Sequence[Path], *, window: int, strategies: Sequence[str] | None, pricing: str, as_json: bool,
             plot: Path | None, model: str | None, totals_only: bool, base_url: str | None,
             api_key: str | None, limits: dict[str, Any] | None, settings: dict[str, Any] | None = None,
             prices: str | None = None) -> int:
    import json

    from .. import secrets
    from ..models import ConfigError
    from .standin import ModelFailed

    if sys.__stdout__ is None:  # started with stdout closed (`>&-`): the figures could go nowhere
        sys.stderr.write("compact-agent: cannot write the output: standard output is closed\n")
        return 1  # as for a full disk (`> /dev/full`), told before the replay rather than after it
    summarize: Summaries | None = None
    try:
        if model:
            summarize = summaries(model, base_url, api_key, limits)
        analysis = asyncio.run(analyze(paths, window=window, strategies=strategies, pricing=pricing,
                                       summarize=summarize, settings=settings, prices=prices))
        analysis.summary_model = model or None
        if plot is not None:
            from .plot import write_plot

            write_plot(analysis, plot)
    except (AnalyzeError, ConfigError, ModelFailed) as e:
        return failed(secrets.redact(str(e)), e.exit_code if isinstance(e, AnalyzeError) else 1, as_json)
    except OSError as e:  # the chart or a transcript: say which file and why, without the exception's name
        where = f" {e.filename}" if e.filename else ""
        return failed(f"could not use{where}: {e.strerror or e}", 1, as_json)
    except Exception as e:  # noqa: BLE001 - a provider error from --model, or a bug: one line, never a traceback
        lines = secrets.redact(str(e)).strip().splitlines()
        return failed(f"analysis failed: {lines[0] if lines else 'unexpected error'}"[:385], 1, as_json)
    if ignored := ignored_variables(os.environ):  # the chat's settings; figures that compare use the defaults
        sys.stderr.write(f"compact-agent: note: ours is replayed with the default settings"
                         f"{' and --set' if settings else ''}; {', '.join(ignored)} "
                         f"(set here) {'is' if len(ignored) == 1 else 'are'} not read (--set NAME=VALUE sets "
                         "one for the replay)\n")
    for note in [*skip_lines(analysis.skipped, analysis.plain), *copies_lines([r.transcript.source for r in analysis.runs])]:
        sys.stderr.write(f"compact-agent: {printable(note)}\n")  # a folder's READMEs and CSVs in one line
    if summarize is not None and (said := summarize.note()) is not None:
        sys.stderr.write(secrets.redact(f"compact-agent: {said}") + "\n")
    code = 1 if analysis.failed_ours else 0  # a bug of ours: the others' figures, then 1
    if as_json:
        sys.stdout.write(json.dumps(to_json(analysis, totals_only), indent=1) + "\n")
        return code
    console = output_console()
    print_tables(analysis, console, per_transcript=not totals_only)
    if plot is not None:
        console.print(f"chart written to {printable(str(plot))}", soft_wrap=True, markup=False)  # a path: whole, to be copied
    if console.record:  # a file or a pipe: the text laid out above, without the padding
        sys.stdout.write(without_trailing_spaces(console.export_text()))
    return code


def summaries(model: str, base_url: str | None, api_key: str | None, limits: dict[str, Any] | None = None
              ) -> Summaries:
    """The `--model` summarizer, watched (batch.Summaries), knowing where it sends its requests and
    where its key came from, to say so when they fail; raises ConfigError when it has no key. `limits`:
    the settings' timeout and retries (`request_timeout_s`, `max_retries`), as the chat's requests."""
    from ..models import provider_for
    from .standin import model_summarizer

    inner = model_summarizer(model, base_url=base_url, api_key=api_key, **(limits or {}))
    var = {"anthropic": "ANTHROPIC_API_KEY", "deepseek": "DEEPSEEK_API_KEY"}.get(provider_for(model, base_url),
                                                                              "OPENAI_API_KEY")
    key_from = "the key given with --api-key" if api_key else var if os.environ.get(var) else ""
    url = getattr(getattr(inner, "model", None), "base_url", None) or base_url or ""
    return Summaries(inner, model, url, key_from)


FILE_WIDTH = 80


def output_console() -> Console:
    """A terminal's own width; a file or a pipe gets 80 columns, or `COLUMNS` when set (rich would
    take the width of the terminal stderr is on). 80 columns read whole in an editor, a pager, a
    mail or a CI log; `COLUMNS=200` writes every column, `--json` every figure. A file or a pipe
    gets the text once it is all laid out (`export_text`): rich pads each line of a table to its
    width, and those trailing spaces are taken off first (`without_trailing_spaces`)."""
    if sys.stdout.isatty():
        return Console()
    columns = os.environ.get("COLUMNS", "").strip()
    return Console(width=int(columns) if columns.isdigit() and int(columns) > 0 else FILE_WIDTH,
                   file=io.StringIO(), record=True)


def without_trailing_spaces(text: str) -> str:
    """Each line without the spaces a table pads it with (a diff, `grep ' $'` or an editor shows them)."""
    return "\n".join(line.rstrip() for line in text.split("\n"))


def analyze_paths_for_demo(paths: Sequence[Path], console: Console, window: int = DEMO_WINDOW) -> Analysis | None:
    """After `make demo`: replay the demo's own session through ours and every rival at its window."""
    console.rule("[bold]analyzer[/] — the demo session replayed through every strategy")
    try:
        analysis = asyncio.run(analyze(paths, window=window))
    except AnalyzeError as e:
        console.print(f"[red]analyzer: {e}[/]")
        return None
    print_tables(analysis, console)
    return analysis
