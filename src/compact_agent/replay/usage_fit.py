"""The line through a transcript's recorded usage: provider tokens ≈ ratio × our estimate + overhead.

A point is (our estimate of the history before a request, the input tokens recorded for it). The
fit is the better of least squares (clamped) and the overhead alone; a fit off by more than
MAX_FIT_ERROR on average is not believed.

An agent that trims what it sends before it compacts (a large tool result moved to a file with a
preview left, old results cleared, old rounds folded: our layers, and other agents' like them) is
billed for less than its history from its first trim on, so those requests lie below the line the
requests before drew, and a line through all of them follows none: `compact-agent analyze` of one
of our own sessions said "recorded usage does not follow the messages" of honest usage.
`leading_points` finds the requests before the first trim, which the history does describe. Our own
sessions say what their layers kept out of each request (the event log, sizing.kept_out): their points
are of what was sent, and the line follows them all.
"""

from __future__ import annotations

import statistics
from collections.abc import Sequence

Point = tuple[int, int]

MAX_FIT_ERROR = 0.12
MIN_LEADING = 3
"""Fewest first requests a fit is made on when the later ones were trimmed."""


def errors(pts: Sequence[Point], ratio: float, overhead: float) -> list[float]:
    return [abs(ratio * x + overhead - y) / y for x, y in pts]


def best_fit(pts: Sequence[Point]) -> tuple[float, float]:
    """(ratio, overhead): least squares when there is a spread to fit a ratio on and the ratio is one
    a tokenizer could have, else ratio 1 and the median overhead; whichever is off by less."""
    xs = [x for x, _ in pts]
    ys = [y for _, y in pts]
    fits = [(1.0, max(0.0, statistics.median(y - x for x, y in pts)))]
    if len(pts) >= 3 and max(xs) - min(xs) >= 2_000:
        mx, my = statistics.fmean(xs), statistics.fmean(ys)
        sxx = sum((x - mx) ** 2 for x in xs)
        ratio = sum((x - mx) * (y - my) for x, y in zip(xs, ys, strict=True)) / sxx
        if 0.5 <= ratio <= 3.0:  # beyond that no tokenizer differs from chars/4: the usage is made up
            fits.append((ratio, max(0.0, my - ratio * mx)))
    return min(fits, key=lambda f: statistics.fmean(errors(pts, *f)))


def leading_points(pts: Sequence[Point]) -> int:
    """How many of the first points to fit when a line through all of them fits none; 0 for none.

    The longest run of first points (at least MIN_LEADING) that one line describes, every point
    within MAX_FIT_ERROR, and only if no later point lies above that line by more than that: a
    trimmed request is billed for less than its history, never for more. Usage that a run of first
    requests does not follow, or that later rises above them, stays unbelieved."""
    n = 0
    for m in range(MIN_LEADING, len(pts)):
        if max(errors(pts[:m], *best_fit(pts[:m]))) > MAX_FIT_ERROR:
            break
        n = m
    if not n:
        return 0
    ratio, overhead = best_fit(pts[:n])
    if any(y > (ratio * x + overhead) * (1 + MAX_FIT_ERROR) for x, y in pts[n:]):
        return 0
    return n
