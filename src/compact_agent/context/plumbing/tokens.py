"""How big is the context? Estimates anchored to what the provider reported.

A local estimate (characters / 4) is cheap but can be off by 30% on code or CJK text. The provider's
`usage.input_tokens` for the last request is exact for what was sent then. `Calibration` keeps the
ratio between the two, so the size of a new view is `estimate(view) * ratio`: exact when nothing
changed, and proportionally right after a layer rewrote part of it. What every request carries
besides its messages is counted by providers as more than our estimate of it (each wraps the tool
definitions in its own format; Anthropic adds a tool-use system prompt of its own): once reports of
requests of different sizes show it, that fixed part (`Calibration.fixed`) is learned apart from the
ratio, which then scales the messages alone. The estimate of one message is memoised by object
identity because histories are re-measured before every request.
"""

from __future__ import annotations

import itertools
import json
import math
import statistics
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

from pydantic_ai.messages import (
    BinaryContent,
    ModelMessage,
    ModelRequest,
    ModelResponse,
    ThinkingPart,
    ToolCallPart,
    ToolReturnPart,
    UserPromptPart,
)

from . import media_size
from .identity_memo import IdentityMemo
from .silent_cut import CutWatch
from .thinking import ThinkingCounts

CHARS_PER_TOKEN = 4.0
PER_MESSAGE_OVERHEAD = 4
IMAGE_TOKENS = media_size.IMAGE_TOKENS  # an image, whatever its size; a document counts by its size (media_size.py)
AVAILABLE = "The following tool(s) are now available: "  # pydantic-ai's words for tools that joined the run

_memo: IdentityMemo[int] = IdentityMemo()


def text_tokens(text: str) -> int:
    return math.ceil(len(text) / CHARS_PER_TOKEN)


def _content_chars(content: Any) -> tuple[int, int]:
    """(characters, extra tokens) of a part's content: images a fixed token cost, documents their size."""
    if content is None:
        return 0, 0
    if isinstance(content, str):
        return len(content), 0
    if isinstance(content, BinaryContent):
        return media_size.document_size(content)
    if isinstance(content, (list, tuple)):
        chars = extra = 0
        for item in content:
            c, e = _content_chars(item)
            chars += c
            extra += e
        return chars, extra
    if hasattr(content, "url"):
        return 0, IMAGE_TOKENS
    try:
        return len(json.dumps(content, default=str, ensure_ascii=False)), 0
    except (TypeError, ValueError):
        return len(str(content)), 0


def part_tokens(part: Any) -> int:
    if isinstance(part, ToolCallPart):
        args = part.args if isinstance(part.args, str) and part.args.isascii() and "\\u" not in part.args else (
            json.dumps(part.args_as_dict(), ensure_ascii=False))  # a tokenizer reads no `\uXXXX` escape
        return text_tokens(part.tool_name + args + part.tool_call_id) + 3
    if isinstance(part, ToolReturnPart):
        chars, extra = _content_chars(part.content)
        return math.ceil((chars + len(part.tool_call_id)) / CHARS_PER_TOKEN) + extra + 3
    if added := getattr(part, "tools_added", None):  # a ToolAvailabilityDeltaPart: a system message naming them
        return text_tokens(AVAILABLE + ", ".join(f"`{name}`" for name in added)) + PER_MESSAGE_OVERHEAD
    chars, extra = _content_chars(getattr(part, "content", None))
    return math.ceil(chars / CHARS_PER_TOKEN) + extra


def message_tokens(message: ModelMessage) -> int:
    hit = _memo.get(message)
    if hit is not None:
        return hit
    return _memo.put(message, PER_MESSAGE_OVERHEAD + sum(part_tokens(p) for p in message.parts))


def estimate(messages: Iterable[ModelMessage]) -> int:
    return sum(message_tokens(m) for m in messages)


_thinking_memo: IdentityMemo[int] = IdentityMemo()


def thinking_tokens(messages: Iterable[ModelMessage]) -> int:
    """Estimated tokens of the thinking in `messages`' responses: what a provider may leave
    uncounted (Calibration.observe's `unsure`). Memoised by message, as `message_tokens` is: the
    history is the same objects request after request."""
    total = 0
    for m in messages:
        if isinstance(m, ModelResponse):
            hit = _thinking_memo.get(m)
            total += hit if hit is not None else _thinking_memo.put(
                m, sum(part_tokens(p) for p in m.parts if isinstance(p, ThinkingPart)))
    return total


_media_memo: IdentityMemo[int] = IdentityMemo()


def media_tokens(messages: Iterable[ModelMessage]) -> int:
    """Estimated tokens of the images and other media in `messages`: a flat `IMAGE_TOKENS` each (a PDF
    `PDF_PAGE_TOKENS` a page: media_size.py), where
    providers count most far fewer (OpenAI's low detail 85, Gemini 258): what a report cannot be judged
    by (Calibration.observe's `flat`). Memoised by message, as `message_tokens` is."""
    total = 0
    for m in messages:
        hit = _media_memo.get(m)
        total += hit if hit is not None else _media_memo.put(m, sum(_content_chars(c)[1] for p in m.parts if (
            c := getattr(p, "content", None)) is not None and not isinstance(c, str | dict)))
    return total


def earlier_thinking_tokens(messages: Sequence[ModelMessage]) -> int:
    """Estimated tokens of the thinking in responses of earlier turns: those before the newest request
    that carries a user prompt. A provider may leave them out of its count (Anthropic's Haiku models,
    Opus before 4.5 and Sonnet before 4.6 keep only the last turn's; a server may not be sent them
    back; later Opus and Sonnet keep them all), and the thinking of the turn under way may be counted
    or not apart from them; `Calibration.thinking_counted` and `current_thinking_counted` say what
    this provider does."""
    return thinking_tokens(messages[:turn_start(messages)])


def turn_start(messages: Sequence[ModelMessage]) -> int:
    """Where the turn under way starts in `messages`: the newest request that carries a user prompt (0: none)."""
    return next((i for i in range(len(messages) - 1, -1, -1) if isinstance(messages[i], ModelRequest)
                 and any(isinstance(p, UserPromptPart) for p in messages[i].parts)), 0)


def request_overhead(instructions: str | None, tool_defs: Sequence[Any] = ()) -> int:
    """Tokens of what every request carries besides the messages: system prompt and tool schemas."""
    n = text_tokens(instructions or "")
    for t in tool_defs:
        schema = getattr(t, "parameters_json_schema", None) or {}
        n += text_tokens(getattr(t, "name", "") + (getattr(t, "description", "") or "") + json.dumps(schema))
    return n


#: Provider tokens per estimated token that a report may imply. Characters/4 overestimates English
#: prose a little (~0.8) and underestimates code, JSON and non-Latin text (up to ~4 for CJK); a report
#: under half the estimate is not a tokenizer but a wrong report (a stand-in model, a usage figure
#: of another request), and believing it would scale every later size down and send over the window.
MIN_RATIO, MAX_RATIO = 0.5, 4.0
#: Reports needed before a size below the raw estimate is believed when judging whether it fits.
LOW_EVIDENCE = 2
#: A request estimated below this is mostly the chat's framing, which the estimate leaves out: its
#: report sets no ratio (a 5-token request reported as 51 pinned every size at 4x), and serves the fit.
TINY_REQUEST = 256

#: Reports the fixed part is fitted from (`Calibration.fixed`): the newest, as requests change.
FIT_REPORTS = 6
#: Two reports tell the fixed part from the ratio only for requests this far apart in size (share of
#: the larger): closer ones give a slope that is mostly the noise of the tokenizer.
FIT_SPREAD = 0.1


def _fit(reports: Sequence[tuple[int, int]]) -> tuple[float, float] | None:
    """(ratio, fixed) with reported = fixed + ratio x estimated: the median slope of the pairs of
    reports far enough apart (one odd report moves a median little), through the newest report (the
    request most like the next). None when no pair tells them apart, or the fit is not plausible: a
    ratio out of bounds, or a fixed part below nothing or above half the newest request."""
    slopes = [(r1 - r0) / (t1 - t0) for (r0, t0), (r1, t1) in itertools.combinations(reports, 2)
              if abs(t1 - t0) >= FIT_SPREAD * max(t0, t1)]
    if not slopes:
        return None
    ratio = statistics.median(slopes)
    reported, estimated = reports[-1]
    fixed = reported - ratio * estimated
    if not MIN_RATIO <= ratio <= MAX_RATIO or not 0.0 <= fixed <= reported / 2:
        return None
    return ratio, fixed


@dataclass
class Calibration:
    """Provider-reported prompt tokens against our estimate of the same request: a ratio, and the
    fixed part every request carries beyond it once reports allow telling the two apart. Whether
    the provider counts the model's thinking of earlier turns is learned too (`thinking_counted`), and
    that of the turn under way (`current_thinking_counted`): where it does not, estimates leave it
    out (`counted`)."""

    ratio: float = 1.0  # provider tokens per estimated token (of the messages, once `fixed` is learned)
    fixed: float = 0.0  # provider tokens of every request beyond `ratio` x its estimate (`_fit`)
    samples: int = 0
    rejected: int = 0
    low: int = 0  # consecutive accepted reports below the estimate
    watch: CutWatch = field(default_factory=CutWatch)  # whether the server cuts prompts, silently (`cut_to`)
    thinking: ThinkingCounts = field(default_factory=ThinkingCounts)  # what it counts of the model's (thinking.py)
    _last: tuple[int, int] | None = None  # the previous report: (reported, estimated)
    _last_unsure: int = 0  # of the previous report's estimate, the thinking a provider may not count, and media
    _last_earlier: int = 0  # of that, the thinking of turns before the request's (`earlier_thinking_tokens`)
    _last_current: int = 0  # and the thinking of the request's own turn (`_last_unsure` less `_last_earlier`)
    _single: float = 1.0  # the ratio of whole requests, the newest weighing most: what `ratio` is until a fit
    tools_framing: int | None = None  # estimated framing of the tools its reports are of (measuring.py `framing_since`)
    # The newest accepted, for `_fit`: (reported, estimated, and of it the earlier and the own turn's thinking).
    _reports: list[tuple[int, int, int, int]] = field(default_factory=list)
    # Reports learned from since the newest that agreed with its prediction, each as (what was learned
    # before it: (_single, samples, low, _reports), its size predicted): gone back on if cut (`_unlearn`).
    _unsure_of: list[tuple[tuple[float, int, int, list[Any]], float]] = field(default_factory=list)

    @property
    def thinking_counted(self) -> bool | None:
        """Whether the provider counts the thinking of earlier turns; None until reports tell."""
        return self.thinking.earlier

    @property
    def current_thinking_counted(self) -> bool | None:
        """Whether it counts that of the turn under way, the request's own."""
        return self.thinking.current

    def uncounted(self, earlier: int, current: int) -> int:
        """Of `earlier` tokens of earlier turns' thinking and `current` of the turn under way's, what the
        provider's reports showed it leaves out of its count."""
        return self.thinking.uncounted(earlier, current)

    def left_out(self, messages: Sequence[ModelMessage]) -> int:
        """Of `messages`' estimate (characters/4), the thinking the provider's reports showed it does
        not count (`uncounted`; earlier turns' is that before the newest user prompt)."""
        if self.thinking.earlier is not False and self.thinking.current is not False:
            return 0
        earlier = earlier_thinking_tokens(messages)
        return self.uncounted(earlier, thinking_tokens(messages) - earlier)

    def counted(self, estimated: int, earlier: int, current: int = 0) -> int:
        """Of an estimate that includes `earlier` tokens of earlier turns' thinking and `current` of the
        turn under way's, what the provider counts (all but what is `uncounted`)."""
        return max(1, estimated - self.uncounted(earlier, current))

    def observe(self, reported_input: int, estimated_input: int, unsure: int = 0, earlier: int = 0,
                flat: int = 0, cuts: bool = True) -> bool:
        """Learn from one report; False when it is implausible and ignored. `unsure`: of the
        estimate, the model's thinking, which a provider may count or not (Anthropic drops
        the thinking of earlier turns from a request; a DeepSeek thinking model is sent its reasoning
        back): a request that grew by it alone did not grow for such a provider, and two reports of
        one size around it are no server cutting prompts (`cut_to`), nor are two around a request
        that grew only without it (a fold swapped thinking for its digest). `earlier`: of `unsure`, the
        thinking of turns before this request's; the rest is the request's own turn's. The provider
        counts each or not for good (`thinking_counted`, `current_thinking_counted`, `_vote`): where it
        does not, the ratio is learned without it. A request under `TINY_REQUEST` sets no ratio. A ratio
        bounded at MAX_RATIO stays, however many reports below MIN_RATIO follow: a tokenizer that dense
        with a server reporting only what its cache did not hold looks the same, and letting it go
        would count a quarter of what the provider does. A report of a prompt the server cut is not
        learned from, and those before it that may have been cut too are gone back on (`cut_to`).
        `flat`: of the estimate, the media at a flat size (`media_tokens`), which no growth judged a cut weighs.
        `cuts=False`: the report is of no server (`silent_cut.a_server`), which cuts nothing: never judged a cut."""
        if reported_input <= 0 or estimated_input <= 0:
            return False
        current = max(0, unsure - earlier)
        calibrated = self.samples > 0 and estimated_input >= TINY_REQUEST
        predicted = self.whole(self.counted(estimated_input, earlier, current))  # as learned before it
        last, self._last = self._last, (reported_input, estimated_input)
        last_unsure, self._last_unsure = self._last_unsure, unsure + flat
        moved, self._last_earlier = earlier - self._last_earlier, earlier
        added, self._last_current = current - self._last_current, current
        verdict = self.watch.judge(reported_input, estimated_input, unsure + flat, predicted=predicted, scale=self.whole,
                                   last=None if last is None else (*last, last_unsure), calibrated=calibrated,
                                   plausible=reported_input <= MAX_RATIO * estimated_input) if cuts else "whole"
        if verdict == "cut":  # what the reports of prompts it cut taught of the tokenizer goes
            self._unlearn(self.watch.cut or 0)
            self.rejected += 1
            return False
        if last is not None:  # a report of a prompt the server cut decides nothing of the thinking
            self._vote(reported_input, estimated_input, earlier, current, (
                estimated_input - last[1], reported_input - last[0], moved, added))
        before = (self._single, self.samples, self.low, list(self._reports))
        r = reported_input / self.counted(estimated_input, earlier, current)
        if r < MIN_RATIO:
            self.rejected += 1
            return False
        # A report that agreed with its prediction was of a request sent whole, and so were those the
        # prediction was made from; one that did not may be of a prompt cut, found out later.
        most = 1.1 * predicted if calibrated else MAX_RATIO * estimated_input  # the most it may have been
        self._unsure_of = [] if verdict == "whole" else [*self._unsure_of, (before, most)]
        report = (reported_input, estimated_input, earlier, current)
        tiny = estimated_input < TINY_REQUEST  # its framing, not the tokenizer: for the fit and `fixed`
        # Over-counting is the safe direction: bounded, not refused, and not fitted from (nor with
        # the reports before it, which were of another scale).
        self._reports = [*self._reports[1 - FIT_REPORTS:], report] if tiny or r <= MAX_RATIO else []
        if tiny:
            self._settle()
            return True
        r = min(MAX_RATIO, r)
        self.low = self.low + 1 if r < 1.0 else 0
        # The newest sample dominates: the request it measured is the one most like the next.
        self._single = r if self.samples == 0 else 0.7 * r + 0.3 * self._single
        self.samples += 1
        self._settle()
        return True

    def _unlearn(self, cut: int) -> None:
        """Go back on the reports since the newest that agreed with its prediction, from the first of a
        request that may have been over `cut` (predicted within a tenth of it, or any tokenizer's count
        before a prediction): to what was learned before one of them, or not, whichever counts the most
        (a cut report is smaller than what the tokenizer made of its request, never larger)."""
        now = (self._single, self.samples, self.low, self._reports)
        best, most = now, self.whole(cut)
        for state in [before for before, at_most in self._unsure_of if at_most > cut]:
            self._single, self.samples, self.low, self._reports = state
            self._settle()
            best, most = (state, self.whole(cut)) if self.whole(cut) > most else (best, most)
        self._single, self.samples, self.low, self._reports = best
        self._settle()
        self._unsure_of = []

    def _settle(self) -> None:
        """`ratio` and `fixed` from what was learned: the fit, else the single ratio, and until a report
        sets that, the newest (tiny) one's count beyond its estimate (at most its estimate) as `fixed`:
        unheeded, a 300-token window's request judged 277 by characters/4 went out at 309."""
        fitted, framing = _fit([(r, self.counted(e, k, c)) for r, e, k, c in self._reports]), 0.0
        if self.samples == 0 and self._reports:
            counted = self.counted(*self._reports[-1][1:])
            framing = float(min(counted, max(0, self._reports[-1][0] - math.ceil(counted * self._single))))
        self.ratio, self.fixed = fitted or (self._single, framing)

    def _vote(self, reported: int, estimated: int, earlier: int, current: int, since: tuple[int, int, int, int]) -> None:
        """What of the model's thinking the provider counts, from this report and the previous one
        (`ThinkingCounts.vote`; `since`: how our estimate, the provider's count and the thinking
        moved and added grew between them). A decision that changes what is counted learns the ratio
        afresh from this report (within the plausible bounds), as the reports before were read otherwise."""
        if self.thinking.vote(self.ratio, *since):
            r = reported / self.counted(estimated, earlier, current)
            self._single, self.low = min(MAX_RATIO, max(MIN_RATIO, r)), 0

    def last_report(self) -> tuple[int, int] | None:
        """The latest report as (reported, estimated), the estimate as the provider counts it (`counted`)."""
        return None if self._last is None else (self._last[0], self.counted(self._last[1], self._last_earlier, self._last_current))

    def kept_report(self) -> tuple[int, int, int, int] | None:
        """The latest report as (reported, estimated, and of the estimate the earlier turns' thinking
        and the request's own turn's), for the session to keep: a `-p` run of one request makes one
        report, and the next run's first is compared with it (`recall_report`)."""
        return None if self._last is None else (*self._last, self._last_earlier, self._last_current)

    def recall_report(self, report: object, thinking: object = None) -> None:
        """Take a `kept_report` a session kept as the report before this process's first, so that
        a server cutting prompts is found out across runs of one request each, and learn the ratio
        from it as from a report of this process (else a resumed session measured in characters/4
        until its first answer); a first report of this process that finds a cut goes back on it. Anything but two positive counts (and the thinking of the
        estimate, the earlier turns' and the turn's own, none below 0 nor together above it) is
        ignored, as is a report once this process has one of its own. `thinking`: what the session
        learned of the model's thinking (`ThinkingCounts.to_json`), unless this process has."""
        if self._last is None and thinking is not None:
            self.thinking = ThinkingCounts.from_json(thinking)
        if not (self._last is None and isinstance(report, list | tuple) and len(report) in (2, 3, 4)
                and all(isinstance(n, int) and not isinstance(n, bool) for n in report)
                and report[0] > 0 and report[1] > 0 and min(report) >= 0 and sum(report[2:]) <= report[1]):
            return
        earlier, current = [*report[2:], 0, 0][:2]
        if self.samples == 0:  # learned from, and gone back on if the next report finds a cut (`_unlearn`)
            self.observe(report[0], report[1], earlier + current, earlier)
        self._last, self._last_unsure = (report[0], report[1]), earlier + current
        self._last_earlier, self._last_current = earlier, current

    def cut_to(self) -> int | None:
        """The window of a server that cuts prompts to it without saying so, once its reports say it
        does (silent_cut.py: a report far below what the calibration predicted for a request that
        grew past one sent whole, or two of one size for requests that grew): the largest size it
        was seen to take, a lower bound of its window. (An Ollama server given a prompt longer than
        its context length drops messages from its front, answers from the rest, and reports that
        as the input: no refusal.) None until then."""
        return self.watch.cut

    def fits_tokens(self, estimated: int) -> int:
        """The size to judge "fits the window" by: the calibrated one, but never below the raw
        estimate until reports agree that this tokenizer counts less than characters/4."""
        calibrated = self.tokens(estimated)
        return calibrated if self.low >= LOW_EVIDENCE else max(calibrated, estimated)

    def tokens(self, estimated: int) -> int:
        """Provider tokens of estimated ones: of messages, or of a whole request whose estimate
        includes `unseen()` (the manager's `overhead` does)."""
        return math.ceil(estimated * self.ratio)

    def unseen(self) -> int:
        """`fixed` in estimate units: added to our estimate of a request's instructions and tool
        definitions, `tokens` of a request's estimate is its size as the provider counts it."""
        return round(self.fixed / self.ratio)

    def whole(self, estimated: int) -> int:
        """Provider tokens of a whole request, from our estimate of it (`unseen` not included)."""
        return math.ceil(estimated * self.ratio + self.fixed)
