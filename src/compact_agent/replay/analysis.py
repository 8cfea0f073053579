"""What an analysis holds (every transcript's runs, what was skipped) and how a transcript is named.

Below both the report (tables, JSON) and the chart, which read an `Analysis` and name transcripts
the same way; neither imports the other.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..models import ModelInfo
from ..ui.visible import visible
from ._words import plural
from .metrics import Metrics, measure, writes_billed
from .simulate import TranscriptRun

#: What "(1 fail)" after a number of compactions means, in the line under the tables and under the chart's.
FAIL_NOTE = "(N fail) = those tried that left the history as it was"

#: What recall "–" means, said under the tables and the chart's where a row shows one: the Codex
#: rollouts showed "–" in every row without a word (their text is redacted, so no step names a path
#: or a name an earlier message held).
RECALL_NOTE = "– = not measured: no step used a path, name or id from earlier context"
REDACTED_NOTE = " (redacted text, replayed as filler, holds none)"


def recall_note(rows: list[Metrics], redacted: bool) -> str:
    """RECALL_NOTE when a row shows recall "–" (nothing needed: `refs_needed` 0), else ""; with why
    when some transcript was replayed on filler standing for redacted text (`redacted`)."""
    if not any(not m.refs_needed for m in rows):
        return ""
    return RECALL_NOTE + (REDACTED_NOTE if redacted else "")


class AnalyzeError(RuntimeError):
    """A problem the user can fix, explained in one line (exit status 2); or, `exit_code` 1, nothing
    replayed because of an error of the analyzer (batch.Skipped.ours), said as beside other files' figures."""

    def __init__(self, message: str, exit_code: int = 2) -> None:
        super().__init__(message)
        self.exit_code = exit_code


@dataclass
class Analysis:
    window: int
    pricing: str
    price: ModelInfo
    runs: list[TranscriptRun] = field(default_factory=list)
    skipped: list[str] = field(default_factory=list)
    plain: frozenset[Path] = frozenset()  # files found in folders plainly no transcript (finding.skip_lines)
    summary_model: str | None = None  # the model `--model` named, which wrote the summaries; None: the stand-in
    settings: dict[str, Any] = field(default_factory=dict)  # the values `--set` gave ours (given_settings.py)
    given_prices: bool = False  # `price` holds the figures `--prices` gave (given_prices.py), not the named list's
    failed_ours: bool = False  # some file's replay failed by an error of the analyzer (batch.Skipped.ours): exit 1

    @property
    def price_label(self) -> str:
        """Which prices the costs are at, as the report's footer and the chart say it."""
        return (f"--prices ({self.pricing}'s prompt cache)" if self.given_prices else f"{self.pricing} prices")

    def price_figures(self) -> str:
        """`$0.28/M input, $0.028/M cached, $0.42/M output` (and a cache write where one is billed),
        as the report's footer and a chart made with `--prices` say them."""
        p = self.price
        return (f"${p.input}/M input, ${p.cache_read}/M cached, ${p.output}/M output"
                + (f", ${p.cache_write}/M cache write" if writes_billed(p) else ""))

    def metrics(self, run: TranscriptRun) -> list[Metrics]:
        return [measure([r], self.price, label(run.transcript.source)) for r in run.runs]

    def totals(self) -> list[Metrics]:
        names = [r.strategy for r in self.runs[0].runs] if self.runs else []
        return [measure([r for t in self.runs for r in t.runs if r.strategy == n], self.price, "total")
                for n in names]


def transcripts_counted(runs: list[TranscriptRun]) -> str:
    """`24 transcripts (3 of them Claude Code compaction requests, not sessions)`: Claude Code keeps
    each compaction's request in a file of its own beside the session (`agent-acompact-*.jsonl`),
    which a folder's search finds and replays as any transcript, so the count said 24 of 21 sessions.
    A subagent's conversation is a file of its own too (`subagents/agent-*.jsonl`, …), replayed as a
    session, its requests being real ones, but not one a person started: `12 transcripts (4 of them
    subagents' conversations; 3 Claude Code compaction requests, not sessions)`."""
    calls = sum(1 for run in runs if run.transcript.compaction_request)
    subagents = sum(1 for run in runs if run.transcript.subagent)
    said = [f"{subagents} of them " + ("a subagent's conversation" if subagents == 1 else "subagents' conversations")
            ] if subagents else []
    said += [f"{calls}{'' if subagents else ' of them'} Claude Code compaction request{'' if calls == 1 else 's'}, "
             "not sessions"] if calls else []
    return plural(len(runs), "transcript") + (f" ({'; '.join(said)})" if said else "")


def label(path: Path) -> str:
    """The transcript's whole path as the analysis reached it: the folder (or file) named on the
    command line, then the path within it — the name the skip notes and `--json` give a file, and
    whole (file names repeat across folders: every Claude Code subagent is `subagents/agent-*.jsonl`).
    Made relative to the working directory, a folder named by its absolute path elsewhere showed
    as `../../shared/data/…`, a path the user never typed and that no note used."""
    return str(path)


def printable(text: str) -> str:
    """`text` (a path, a note naming one) for the terminal or the chart: each control character as
    its escape, as the rest of the product shows them (ui/visible.py), a newline and a tab too, so a
    name stays on its line. A file named `evil\\x1b[31m…` coloured the terminal, one with `\\x1b]0;`
    set its title, and the chart of either was no XML a browser opens."""
    return visible(text).replace("\n", "\\n").replace("\t", "\\t")
