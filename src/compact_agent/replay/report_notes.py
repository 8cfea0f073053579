"""The lines under the analyzer's tables: what each column means, who wrote the summaries, and
what the figures of a run should be read with (the importers' warnings in one line).

Apart from report.py, which lays out the tables: the notes are words to keep right on their own,
and the tables' module stays within its size.
"""

from __future__ import annotations

import math
from collections.abc import Collection, Mapping, Sequence

from ..models import model_info
from ._words import plural
from .analysis import FAIL_NOTE, Analysis, recall_note
from .metrics import Metrics
from .simulate import TranscriptRun
from .sizing import OVERHEAD_CAP

#: After the name of a strategy whose row cannot be compared with ours (`not_comparable`), and what it means.
MARK = "*"
NOT_COMPARABLE = (f"{MARK} = more requests over the window than ours: a provider would refuse each of them, so the "
                  "row's cost and recall do not compare")
#: What the mark means in tables without ours (`-s none -s gemini`), where it marks every row with a request over.
OVER_WINDOW = (f"{MARK} = requests over the window: a provider would refuse each of them, so the row's cost and "
               "recall are not what it would have got")


def mark_note(rows: Sequence[Metrics]) -> str:
    """What `MARK` means under tables of these rows: beside ours, more requests over than ours; without it, any."""
    return NOT_COMPARABLE if any(m.strategy == "ours" for m in rows) else OVER_WINDOW

#: The cost parts' column (report_table.parts_text): hit / miss / output / summary / notes / reread.
PARTS = "hit miss out sum notes reread $"


def summaries_line(model: str | None) -> str:
    """Who wrote the summaries the summary-based strategies were replayed with: the figures of a real
    model's (`--model`) and of the deterministic stand-in's differ, and the output did not say which."""
    if model:
        return f"summaries by {model} (--model)"
    return "summaries by the deterministic stand-in (--model NAME has a model write them)"  # 80 columns


#: The strategies that write no summary: tables of these alone get no line on who wrote them.
NO_SUMMARIES = frozenset({"none", "masking", "cline"})

#: Under the tables: what ours is, and where each rival's behaviour is told.
OURS_IS, RIVALS_ARE = "ours = compact-agent's pipeline", "each rival: docs/analyzer.md, \"The rivals\""
WHO = f"{OURS_IS}; {RIVALS_ARE}"


def who_line(strategies: Collection[str]) -> str:
    """WHO, or its half on the strategies shown: `-s none -s gemini` said what ours is, not shown."""
    return "; ".join([*([OURS_IS] if "ours" in strategies else []), *([RIVALS_ARE] if set(strategies) - {"ours"} else [])])


def max_output_line(analysis: Analysis) -> str:
    """The output limit the strategies were replayed with, and whose it is: batch.py takes the max
    output of `--pricing`'s model, capped at a quarter of the window (said so: at `--window 8000`
    the line named 2,000 tokens "deepseek-chat's", whose own is 8,192), and the rivals' triggers and
    ours' reserve are built on it, so `--pricing anthropic` moves them even at the same `--prices`."""
    name, tokens = assumed_max_output(analysis)
    if tokens < (own := model_info(name).max_output):
        return (f"max output {tokens:,} tokens (a quarter of the window: {name}'s own {own:,}, from --pricing, "
                "capped there; the strategies' triggers assume it)")
    return f"max output {tokens:,} tokens ({name}'s, from --pricing; the strategies' triggers assume it)"


def assumed_max_output(analysis: Analysis) -> tuple[str, int]:
    """The model whose max output the strategies were replayed with, and that max output in tokens."""
    name = analysis.price.name
    return name, model_info(name, window=analysis.window).max_output


def warnings_summary(analysis: Analysis) -> str:
    """The importers' warnings in one line, for the totals alone (`--totals`): how many transcripts
    have some, and how many were replayed on filler standing for redacted text."""
    warned = [run for run in analysis.runs if run.transcript.warnings]
    if not warned:
        return ""
    filler = sum(1 for run in warned if run.transcript.filler_chars)
    return (f"{len(warned):,} of {plural(len(analysis.runs), 'transcript')} {'was' if len(warned) == 1 else 'were'} "
            "imported with warnings"
            + (f" ({filler} replayed on deterministic filler standing for redacted text)" if filler else "")
            + "; without --totals each is shown under its table, --json lists them")


#: What a column means, for the line under the tables (a narrow table leaves some columns out).
LEGEND = {
    "req": "req = requests replayed (one per recorded model response)",
    "peak": "peak = the largest request, in tokens",
    "mean": "mean = the mean request, in tokens",
    "over": "over = requests larger than the window",
    "compact": f"compact = compactions; {FAIL_NOTE}",
    "cached": "cached = share of the input tokens read from the prompt cache",
    "cost": "cost = dollars of every request, the summary and session-notes calls and the re-reads of stalls "
            "included",
    PARTS: "hit miss out sum notes reread = the cost in dollars: main requests' cache hits, misses (cache writes "
           "included) and output, summary calls, session-notes calls, and the look-agains of stalls",
    "recall": "recall = share of what the next step used from earlier context (paths, names, ids) still in the "
              "request",
    "edit": "edit = share of edits whose old text was still in the request (– = no edit changed text that "
            "arrived before the previous response)",
    "stalls": "stalls = request points missing something the next step used, each priced as one more request "
              "that re-reads its source",
    "rebuild miss": "rebuild miss = miss tokens of the first request after each compaction (share of all "
                    "main-request misses)",
    "side": "side = share of the cost spent on summaries, probes and session-notes updates",
    "freed (view/req; compaction)": "freed: ours' L1 budget, L2 snip, L3 microcompact, L4 collapse, L5 "
                                    "compaction; the rivals' mask (masking), prune (opencode), out-mask and trunc "
                                    "(gemini's output masking and truncation), clear (anthropic-clear), cut (cline's "
                                    "compaction, rebuilt without a model), sum (their compaction)",
    "kept u/f/last": "kept = share of the user's messages / changed files / last request present after each "
                     "compaction (– = no compaction; between the slashes, no file changed before one)",
}


#: The freed column's labels, by the strategy whose rows show them (LEGEND's, for the strategies shown).
FREED = {"ours": "ours' L1 budget, L2 snip, L3 microcompact, L4 collapse, L5 compaction", "masking": "mask (masking)",
         "opencode": "prune (opencode)", "gemini": "out-mask and trunc (gemini's output masking and truncation)",
         "anthropic-clear": "clear (anthropic-clear)", "cline": "cut (cline's compaction, rebuilt without a model)"}
#: The strategies whose rows never show `sum`: no compaction of theirs, ours' (L5), or one no model writes (`cut`).
NO_SUM = frozenset({"ours", "none", "masking", "cline"})


def freed_legend(strategies: Collection[str]) -> str:
    """What the labels of the freed column mean, for the strategies shown alone."""
    rivals = [FREED[s] for s in FREED if s != "ours" and s in strategies]
    rivals += ["sum (their compaction)"] if set(strategies) - NO_SUM else []
    parts = [*([FREED["ours"]] if "ours" in strategies else []), *([f"the rivals' {', '.join(rivals)}"] if rivals else [])]
    return f"freed: {'; '.join(parts)}" if parts else "freed: – = nothing taken out (no compaction)"


#: Under the tables, when a caption shows the fit of a transcript's sizes (sizing.py), and when one
#: says its recorded prompts held more than any system prompt (OVERHEAD_CAP in its place).
FIT_NOTE = ("size = R × estimate + N overhead: how the replay sizes the transcript's requests, fitted to the "
            "token counts it recorded: R times our count of the messages, plus N tokens sent with every request "
            "that the file does not hold (system prompt, tool definitions)")
FIT_ERROR_NOTE = "fit error = how far that formula is from the recorded counts, on average / at most"
CAPPED_NOTE = ("recorded prompts exceed the messages: the recorded counts are larger than the messages and any "
               "system prompt, as the request carried content the file does not hold (a compaction request, the "
               f"conversation it summarized); it is replayed with a {OVERHEAD_CAP:,}-token overhead in its place, "
               "so its sizes and cost are below what was sent")


def footer_notes(analysis: Analysis, columns: Sequence[str], shown: Sequence[Metrics], *, redacted: bool,
                 marked: bool, captions: Sequence[TranscriptRun]) -> list[str]:
    """The notes of the line under the tables, after the window and prices: who the strategies shown
    are, what each column shown means (the freed column's labels for those strategies; what `MARK`
    is, when a row of a table has it: `marked`), and the captions' terms (`captions`: the
    transcripts whose table was printed with its caption)."""
    strategies = {m.strategy for m in shown}
    failed = any(m.failed_compactions for m in analysis.totals())  # "(1 fail)" is said only where it shows
    notes = [LEGEND[c] for c in columns if c in LEGEND and (c != "compact" or failed)]
    if "recall" in columns and (dash := recall_note(list(shown), redacted)):
        notes[notes.index(LEGEND["recall"])] += f"; {dash}"
    if (freed := "freed (view/req; compaction)") in columns:
        notes[notes.index(LEGEND[freed])] = freed_legend(strategies)
    if marked:
        notes.insert(notes.index(LEGEND["over"]) + 1, mark_note(shown))
    if any(run.tm.error_mean is not None for run in captions):  # a formula shown, with its error where fitted on more
        notes.append(FIT_NOTE + (f"; {FIT_ERROR_NOTE}" if any(
            run.tm.error_mean is not None and run.tm.samples > 1 for run in captions) else ""))
    notes += [CAPPED_NOTE] if any(run.tm.assumed for run in captions) else []
    return [who_line(strategies), *notes]


def window_warning(analysis: Analysis) -> str:
    """One line when the window is no larger than what some transcripts send with every request,
    their recorded system prompt and tools, or the OVERHEAD_CAP assumed where their recorded prompts
    exceed what the file holds (the fit's overhead): every request of theirs is over the window
    whatever the strategy, and the figures, printed as usual, compare nothing (`--window 5000`
    against Claude Code sessions that carry 26K). "" when every transcript fits."""
    over = [run for run in analysis.runs if run.tm.overhead >= analysis.window]
    if not over:
        return ""
    formats = ", ".join(sorted({run.transcript.format for run in over}))
    most = max(run.tm.overhead for run in over)
    assumed = sum(run.tm.assumed for run in over)
    held = f"the {OVERHEAD_CAP:,} tokens assumed where the recorded prompts exceed what the file holds"
    what = ("their recorded system prompt and tools" if not assumed
            else f"their system prompt and {held}" if assumed == len(over)
            else f"their recorded system prompt and tools, or for {assumed:,} of them {held}")
    return (f"window {analysis.window:,} tokens is no larger than what {len(over):,} of "
            f"{plural(len(analysis.runs), 'transcript')} ({formats}) send with every request, {what} "
            f"({'' if len(over) == 1 else 'up to '}{most / 1e3:.1f}K tokens): each of their "
            "requests is over the window, whatever the strategy")


def not_comparable(rows: Sequence[Metrics]) -> frozenset[str]:
    """The strategies of one table that send more requests over the window than ours: a provider
    would refuse each of those, so their cost and recall, printed as they are, cannot be set against
    ours (at 32K Cline's total looked cheapest with 576 requests over). Without a row of ours, those
    that send any (`OVER_WINDOW`): `-s none -s gemini` showed none's recall of 100% and gemini's 408
    requests over, unmarked, as if a provider had taken them. The JSON's `comparable` is false for the
    rows marked either way, and its `comparable_against` says which (`comparable_against`)."""
    ours = next((m for m in rows if m.strategy == "ours"), None)
    floor = ours.over_window if ours is not None else 0
    return frozenset(m.strategy for m in rows if m.over_window > floor)


def comparable_against(strategies: Collection[str]) -> str:
    """What the JSON's `comparable` of these strategies' rows is measured against: "ours" (false =
    more requests over the window than ours) or, without ours, "window" (false = any request over the
    window). It was null without ours, so a script keeping the rows that compare kept none, and
    `none`, marked `none*` in the table for its requests a provider would refuse, read as unjudged."""
    return "ours" if "ours" in strategies else "window"


def results_json(rows: Sequence[Metrics]) -> list[dict[str, object]]:
    """The rows of one table for `--json`, each with `comparable`: false for a row `not_comparable`
    marks, as the table marks it (`MARK`), beside ours or without it (`comparable_against`)."""
    unfair = not_comparable(rows)
    return [{**m.to_json(), "cost_parts": parts_summing(m.cost, m.cost_parts),
             "comparable": m.strategy not in unfair} for m in rows]


def parts_summing(cost: float, parts: Mapping[str, float]) -> dict[str, float]:
    """The cost's parts in whole micro-dollars that add up to the cost as the JSON rounds it (6
    decimals): each part rounded on its own missed it by 1-2e-6 in many totals. The largest
    remainders get the micro-dollars the parts' floors leave (so a part moves by at most 1e-6 from
    its own rounding, and the cost not at all)."""
    total = round(round(cost, 6) * 1e6)
    micro = {k: math.floor(v * 1e6) for k, v in parts.items()}
    order = sorted(micro, key=lambda k: parts[k] * 1e6 - micro[k], reverse=True)
    left = total - sum(micro.values())
    while left > 0 and order:  # more than a part each only if the parts fell short of the cost itself
        for k in order[:left]:
            micro[k] += 1
        left = total - sum(micro.values())
    for k in reversed(order):  # the parts came to more than the cost: take from the smallest remainders
        if left >= 0:
            break
        taken = min(micro[k], -left)
        micro[k] -= taken
        left += taken
    return {k: v / 1e6 for k, v in micro.items()}
