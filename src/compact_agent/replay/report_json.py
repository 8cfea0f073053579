"""The figures of `compact-agent analyze --json`: one object a script reads instead of the tables.

Every key is named in docs/analyzer.md (a test checks it), with what it holds; the tables and the
chart are report.py's and plot.py's.
"""

from __future__ import annotations

from typing import Any

from ..models import ModelInfo
from .analysis import Analysis
from .given_settings import changed
from .metrics import writes_billed
from .report_notes import assumed_max_output, comparable_against, results_json, window_warning
from .simulate import describe_fit


def to_json(analysis: Analysis, totals_only: bool = False) -> dict[str, Any]:
    head = {"window": analysis.window, "pricing": analysis.pricing, "prices": prices_json(analysis.price, analysis.given_prices),
            "summary_model": analysis.summary_model, "window_warning": window_warning(analysis) or None,
            "max_output": dict(zip(("model", "tokens"), assumed_max_output(analysis), strict=True)),
            "comparable_against": comparable_against([r.strategy for r in analysis.runs[0].runs])
            if analysis.runs else None}
    if settings := changed(analysis.settings):  # the values `--set` gave ours other than the defaults
        head["settings"] = settings
    if totals_only:
        return {**head, "transcripts": len(analysis.runs),
                "compaction_requests": sum(1 for run in analysis.runs if run.transcript.compaction_request),
                "subagents": sum(1 for run in analysis.runs if run.transcript.subagent),
                "totals": results_json(analysis.totals()), "skipped": analysis.skipped,
                # each warned transcript's warnings, as the line under the totals table says `--json` lists them
                "warnings": {str(run.transcript.source): run.transcript.warnings for run in analysis.runs
                             if run.transcript.warnings}}
    return {
        **head,
        "transcripts": [
            {"path": str(run.transcript.source), "format": run.transcript.format, "requests": run.points,
             "compaction_request": run.transcript.compaction_request, "subagent": run.transcript.subagent,
             "fit": describe_fit(run.tm),
             "warnings": run.transcript.warnings, "unknown_kinds": run.transcript.unknown_kinds,
             "results": results_json(analysis.metrics(run))}
            for run in analysis.runs],
        "totals": results_json(analysis.totals()),
        "skipped": analysis.skipped,
    }


def prices_json(price: ModelInfo, given: bool = False) -> dict[str, Any]:
    """The prices every cost was computed with, in dollars per million tokens: a script reading
    `cost` could not tell them (the JSON named only `pricing`, the terminal's line said them).
    `input_cache_write` is null where the provider has no price of its own for writing the cache: a
    DeepSeek write is a miss, priced as `input_miss`. With `--prices` (`given`): the figures given, of
    no model (`model` null, `given` true; `provider` says whose prompt cache was replayed)."""
    if given:
        return {"model": None, "given": True, **{k: v for k, v in prices_json(price).items() if k != "model"}}
    return {"model": price.name, "provider": price.provider, "unit": "USD per million tokens",
            "input_miss": price.input, "input_hit": price.cache_read,
            "input_cache_write": price.cache_write if writes_billed(price) else None, "output": price.output}
