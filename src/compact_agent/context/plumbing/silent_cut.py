"""Is the server cutting prompts to its window without saying so? Judged from its usage reports.

An Ollama server given a prompt longer than its context length refuses nothing: it drops whole
messages from the front (the system message kept, a tool call never parted from its results),
answers from what is left, and reports that as the input. The sizes it keeps vary by a message's
size (6,690, 6,726, 6,761, 6,657, 7,870 for a 9,000 window): equal sizes in a row are the exception.

What tells a cut apart is the calibrated estimate (`Calibration`): a report of a request sent whole
agrees with it, within the error its earlier predictions showed; a cut report is smaller than what
was sent by far more than that. One report is judged so once a report agreed with its prediction:
the request grew past that one, the part it grew by was counted at less than half of its calibrated
size (less the error), and the whole does not agree with its prediction (what it grew by is of
text: thinking a provider may not count and images estimated at a flat size are left out). A report
smaller than the one before it for a request that grew is one too, whatever was learned. Two
reports in a row of one size for requests that grew are a cut, unless the first agreed with its
prediction (a request sent whole, whose size the next request was cut to by chance).

The window learned is a lower bound of the server's: every report is of a prompt the server took,
whole or what it kept of it, so the largest report (`CutWatch.cut`; a report more than any tokenizer
makes of its request is a stand-in's figure, not a size).

That bound is as loose as the messages are large. A server dropping whole messages keeps the newest
that fit: the window is at least what it kept, and less than that plus the newest message it dropped
(which did not fit), and less than the prompt sent. The dropped message bounds the window from above
only: nothing in the report says how much of it would have fit, so the bound is not raised from it (a
window of 6,000 whose newest dropped message held 2,100 tokens may be learned as 3,907). Nor do later
requests raise it, as each is held under the window learned: a server whose window is known is best
given it (`window=`, `--context-window`) or started with a larger one.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Literal

#: A request this much larger than the one compared with grew: less is a rounding of the estimate.
CUT_GROWTH = 1.02
#: The smallest window a server is believed to cut prompts to: below it, a report of one size
#: again and again is a figure the server does not count (a stand-in model's constant), not a window.
MIN_CUT = 1_024
#: A report agrees with its prediction when it is not below it by more than this share, or twice
#: the error measured, whichever is larger, but never by more than `AGREES_AT_MOST` (an early
#: prediction far off, from one report's ratio, measures the framing, not the tokenizer). Once
#: `ERROR_REPORTS` reports measured the error, twice it is the margin, down to `SAME_SIZE`: a cut of
#: 1.9% (a short message dropped) agreed under a fixed 2% and was taken for whole, its shortfall then
#: counted as the estimate's error, which widened the margin for the cuts after it. A margin tighter
#: than the spread seen makes a report "open", never a cut alone: a cut also needs the part the
#: request grew by counted at under half its size (`_cut_alone`).
AGREES, AGREES_AT_MOST = 0.02, 0.1
#: The part a request grew by is counted at no less than this share of its calibrated size by any
#: tokenizer the calibration could have been learned from (code against prose, at most about 2x).
LEAST_GROWTH_COUNTED = 0.5
#: Reports of requests sent whole whose errors measure the estimate's: the newest.
ERROR_REPORTS = 4
#: Two reports this close (a share of the larger) are of one size: a report smaller by no more is not
#: smaller, unless the error measured is larger still.
SAME_SIZE = 0.005

Verdict = Literal["whole", "cut", "open"]

#: The `system` of pydantic-ai's models that answer in the process: FunctionModel and TestModel report
#: their own rough count of the request (about a word a token), which stops growing as no server's does.
NO_SERVER = frozenset({"function", "test"})


def a_server(model: object) -> bool:
    """Whether `model`'s usage reports are a server's count, which may be of a prompt it cut: not those
    of a model answering in the process (`NO_SERVER`), whose counts taught a test's 32,000-token manager
    a window of 1,587 (a wrapper, as instrumentation, says its wrapped model's `system`)."""
    return getattr(model, "system", None) not in NO_SERVER


def same_size(a: int, b: int) -> bool:
    return abs(a - b) <= SAME_SIZE * max(a, b)


@dataclass
class CutWatch:
    """What the reports told of cutting: the window a server cuts to (`cut`, None until found), the
    largest report of a request sent whole, and the newest such report the next is compared with."""

    cut: int | None = None  # the window learned from the cuts: a lower bound of the server's
    uncut: int | None = None  # a report no request of its size could be cut to: never a `cut`
    largest_whole: int = 0  # the largest report judged whole (agreeing with its prediction)
    largest: int = 0  # the largest report any tokenizer could make of its request: a size the server took
    _whole: tuple[int, int] | None = None  # the newest report judged whole: (reported less thinking, least estimate)
    _errors: list[float] = field(default_factory=list)  # relative errors of the newest whole reports
    _open: bool = False  # the previous report was neither whole nor a cut: the first of a pair, maybe
    # The conversation's requests went to this watch's model from another's (ModelWindows, overflow.py): the
    # previous report, the other model's, tells nothing of this one's cutting (a 4K model's after a 100K's).
    switched: bool = False

    def error(self) -> float:
        """The estimate's error measured: the largest of the newest whole reports' (0: none yet), at
        most `AGREES_AT_MOST`: more is a calibration not learned yet (one report's ratio taken for a
        request of another size), not the noise of the tokenizer on what the requests add."""
        return min(AGREES_AT_MOST, max(self._errors, default=0.0))

    def agrees(self, reported: int, predicted: int) -> bool:
        least = SAME_SIZE if len(self._errors) >= ERROR_REPORTS else AGREES
        return reported >= predicted * (1 - min(AGREES_AT_MOST, max(least, 2 * self.error())))

    def judge(self, reported: int, estimated: int, unsure: int, *, last: tuple[int, int, int] | None,
              predicted: int, calibrated: bool, plausible: bool, scale: Callable[[int], int]) -> Verdict:
        """Judge one report of a request we estimated at `estimated`, of which `unsure` is the model's
        thinking the provider may leave uncounted and the media estimated at a flat size (an image at
        1,600, which a provider may count at 85): no growth weighed for a cut is of either, nor a size a
        report is held to. "cut" (and `cut` set), "whole" (it agreed with its
        prediction) or "open". `last`: the previous report as (reported, estimated, unsure); `predicted`:
        the provider's count of the request as calibrated before this report, and `scale` an estimate's;
        `calibrated`: the calibration learned from a report before; `plausible`: some tokenizer counts
        the request so (more than `MAX_RATIO` times the estimate is a stand-in's figure, and a cut keeps
        less than it was sent: later reports of that size are no cut, `uncut`, nor is it whole)."""
        least = max(1, estimated - unsure)  # what the provider counts of it, at least
        if self.switched:
            last, self.switched, self._open = None, False, False
        if not plausible:
            self.uncut = reported
        previous = previous_least = None
        grew = shrank = False
        if last is not None:
            previous, previous_least = last[0], max(1, last[1] - last[2])
            # grown whether or not the provider counts the thinking: a fold that swapped thinking for its
            # digest grew the rest while a provider counting the thinking saw no growth
            grew = least > CUT_GROWTH * previous_least and estimated > CUT_GROWTH * last[1]
            # and reported smaller than the previous one less the thinking it may have counted, by more
            # than the same size's half a percent or the error measured
            shrank = grew and reported < previous * (1 - max(SAME_SIZE, self.error())) - (scale(last[2]) - scale(0))
        constant = self.uncut is not None and same_size(reported, self.uncut)
        if reported >= MIN_CUT and not constant:
            pair = self._open and previous is not None and grew and same_size(reported, previous)
            if pair or self._cut_alone(reported, least, previous_least, shrank, scale):
                self.largest = self.cut = max(self.cut or 0, self.largest, reported)
                self._open = False
                return "cut"
        if plausible:
            self.largest = max(self.largest, reported)
        if calibrated and plausible and predicted > 0 and self.agrees(reported, predicted):
            self._errors = [*self._errors[1 - ERROR_REPORTS:], abs(reported / predicted - 1)]
            self.largest_whole = max(self.largest_whole, reported)
            # as a later request may be counted: without the thinking this one's count may have held
            self._whole = (max(0, reported - (predicted - scale(least))), least)
            self._open = False
            return "whole"
        self._open = True
        return "open"

    def _cut_alone(self, reported: int, least: int, previous_least: int | None, shrank: bool,
                   scale: Callable[[int], int]) -> bool:
        """One report is a cut: it is smaller than the previous one though the request grew
        (`shrank`), or the request grew past the newest one sent whole, the part it grew by was
        counted at under half its calibrated size (less the error measured: a tokenizer counts
        prose, code or output no more than twice apart), and the report does not agree with its
        prediction. A report the size of what the request grew by, under the largest sent whole, is
        no cut but a server counting only what its prompt cache did not hold."""
        predicted = scale(least)
        grown = predicted - scale(previous_least) if previous_least is not None else predicted
        if not (reported >= self.largest_whole or reported > 1.25 * grown):
            return False
        if shrank:
            return True
        if self._whole is None:
            return False
        whole, whole_least = self._whole
        if least <= CUT_GROWTH * whole_least:
            return False
        grown_since = LEAST_GROWTH_COUNTED * (predicted - scale(whole_least))
        return reported < whole + grown_since - self.error() * predicted and not self.agrees(reported, predicted)
