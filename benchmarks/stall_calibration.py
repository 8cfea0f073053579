"""Whether the predicted chance of a look-again matches how often models really reach back (run by hand).

Every priced decision of the pipeline weighs the chance that the next response needs something
deeper than a given depth (`Reuse.stall_rate`): of the session's recent responses, how many reached
that far, with a prior for little evidence. This script walks each recorded session response by
response, asks that question at a few depths *before* the response, then measures the response the
way the pipeline and the analyzer do (`Reuse.observe`) and scores the prediction. It compares
priors given as pseudo-counts (reached that far, responses): the rule of succession (1, 2), Jeffreys'
prior (0.5, 1) and others given with --prior. Sessions replayed on filler for redacted text (the
Codex rollouts) are left out: their responses reach back for nothing, which favours any smaller
prior without saying anything about models.

It prints, per depth: the mean prediction and the share that really reached that far, the same for
the cases where none of the recent responses had (where the prior alone speaks), and the log-loss
(lower is better).

    .venv/bin/python benchmarks/stall_calibration.py [--data DIR] [--kind cold] [--prior 0.25,0.5 ...]

It takes a few seconds for the recorded sessions beside the project.
"""

from __future__ import annotations

import argparse
import math
import sys
from dataclasses import dataclass
from pathlib import Path

from pydantic_ai.messages import ModelResponse

from compact_agent.context.decisions.reuse import KINDS, PRIOR_REACHED, PRIOR_RESPONSES, Reuse
from compact_agent.replay.batch import load_or_note
from compact_agent.replay.finding import find_files
from compact_agent.replay.simulate import replay_messages

ROOT = Path(__file__).resolve().parents[1]
DATA = ROOT.parent / "shared" / "data"
DEPTHS = (1_000, 2_000, 4_000, 8_000, 16_000, 32_000)
MIN_EVIDENCE = 5
"""Responses measured before a prediction is scored: the first few of a session say little."""


@dataclass
class Score:
    predicted: float = 0.0
    reached: int = 0
    cases: int = 0
    log_loss: float = 0.0

    def add(self, p: float, hit: bool) -> None:
        self.predicted += p
        self.reached += hit
        self.cases += 1
        self.log_loss -= math.log(p if hit else 1.0 - p)

    def line(self) -> str:
        n = max(self.cases, 1)
        return f"{self.cases:5d} cases  predicted {self.predicted / n:6.3f}  reached {self.reached / n:6.3f}"


def score(
    paths: list[Path], kind: str, priors: list[tuple[float, float]]
) -> dict[tuple[float, float], dict[int, tuple[Score, Score]]]:
    out = {prior: {d: (Score(), Score()) for d in DEPTHS} for prior in priors}
    for path in paths:
        transcript = load_or_note(path)
        if isinstance(transcript, str) or transcript.filler_chars:
            continue
        messages = replay_messages(transcript)
        reuse = Reuse()
        for i, message in enumerate(messages):
            if not isinstance(message, ModelResponse):
                continue
            n = len(reuse.reaches)
            deeper = {d: sum(1 for r in reuse.reaches if r.depth(kind) > d) for d in DEPTHS}
            reach = reuse.observe(messages[: i + 1])
            if n < MIN_EVIDENCE:
                continue
            for (a, b), by_depth in out.items():
                for d, (every, unseen) in by_depth.items():
                    p = (deeper[d] + a) / (n + b)
                    hit = reach.depth(kind) > d
                    every.add(p, hit)
                    if deeper[d] == 0:
                        unseen.add(p, hit)
    return out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--data", type=Path, default=DATA)
    ap.add_argument("--kind", choices=KINDS, default="cold")
    ap.add_argument(
        "--prior",
        action="append",
        default=[],
        metavar="A,B",
        help="pseudo-counts: reached that far, responses (repeatable)",
    )
    args = ap.parse_args(argv)
    priors = [(PRIOR_REACHED, PRIOR_RESPONSES), (0.5, 1.0)]
    for text in args.prior:
        try:
            a, b = (float(x) for x in text.split(","))
        except ValueError:
            print(f"--prior takes two numbers, A,B: got {text!r}", file=sys.stderr)
            return 2
        priors.append((a, b))
    paths = find_files([args.data])[0]
    if not paths:
        print(f"no transcripts under {args.data}", file=sys.stderr)
        return 1
    results = score(paths, args.kind, priors)
    for (a, b), by_depth in results.items():
        print(f"prior ({a:g}+k)/({b:g}+n), reaches of kind {args.kind!r}:")
        for d, (every, unseen) in by_depth.items():
            print(
                f"  deeper than {d:6,d}: all {every.line()}  | none recent: {unseen.line()}"
                f"  | log-loss {every.log_loss / max(every.cases, 1):.4f}"
            )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
