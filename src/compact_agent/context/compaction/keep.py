"""What a full compaction would keep, known before it is made: one question, one answer.

The schedule prices a compaction before every request (schedule.py): how large the history would
be right after one (the rebuild), how far back the model could still reach without looking again
(the verbatim tail), and whether a record written without a model would do. The compaction itself
(compactor.py) then cuts where that answer says. All of it follows from one cut of one history, so
the compactor answers it once, as a `KeepPlan`, and keeps that answer while nothing it depends on
has changed:

* the history: the same message objects in the same order. The list itself says nothing (an
  automatic compaction rewrites the caller's list in place, and a compaction works on a copy), so
  the plan keeps its own copy and compares the messages by identity;
* what the compactor reads: the fixed part (`overhead`), the limits, the calibration ratio, the
  thrash guard's escalation and the tail budget (which follows the schedule's measurements);
* what it cannot compare: which results the model is using, the files on disk and the read state
  the restorer keeps. These change between requests (the model answers, tools run), in the
  pre-compaction hook, and when a compaction resets the read state: the plan is dropped then
  (`drop_plan`, called by the pipeline before and after preparing each request and after the hook,
  and by the compaction itself when it resets the read state).
"""

from __future__ import annotations

import dataclasses
import math
import operator
from collections.abc import Callable, Collection, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from pydantic_ai.messages import ModelMessage, ModelRequest, ModelResponse, ToolCallPart, ToolReturnPart

from ..plumbing import tokens
from ..plumbing.markers import KEPT, KEY, is_compaction_message
from ..plumbing.settings import SUMMARY_INSTRUCTION_TOKENS, Limits, estimate_margin, side_room
from . import in_run, ledger, summary, user_messages
from .cuts import tail_start
from .restore import Restorer, pick_files, read_paths_in, reads_one_of
from .result import NotSmaller, SentSize
from .runs import chosen, run_key, runs_in, superseded_failures

KEEP_RESULTS = 5
"""Tool results a compaction keeps verbatim (within the tail budget): the newest few, as observation
masking keeps the newest observations; older ones live on in the summary and on disk."""

_UNSET = object()


def escalated(limits: Limits, level: int) -> Limits:
    """Limits for a compaction that follows another too closely: restore less, keep less."""
    if level <= 0:
        return limits
    files = 0 if level >= 2 else max(1, limits.restore_max_files // 2)
    return dataclasses.replace(limits, restore_max_files=files,
                               restore_total_tokens=limits.restore_total_tokens >> level)


@dataclass(eq=False)
class KeepPlan:
    """What a full compaction of `history` now would keep, and at what size.

    `cut`: the summarised part is `history[:cut]`, the verbatim tail `history[cut:]` (`cut` is the
    whole history when no cut is safe: then nothing is kept verbatim). `tail_tokens`: estimated
    tokens from `start`, where `cuts.tail_start` puts the tail (0 when no cut is safe: the whole
    history, which the model can reach until a compaction happens). The rest is worked out on first
    use and then kept: `record` and `record_tokens`, `kept` (the results in use it would keep), and
    `rebuild(summary_tokens)`.
    """

    history: list[ModelMessage]  # a copy: the caller's list may be rewritten in place
    key: tuple[object, ...]  # the compactor's inputs it was made with (`Keeper.preview`)
    start: int
    cut: int
    tail_tokens: int
    overhead: int
    keeper: Keeper = field(repr=False)
    _record: object = field(default=_UNSET, repr=False)
    _kept: list[ModelMessage] | None = field(default=None, repr=False)
    _frame: int | None = field(default=None, repr=False)
    _shaved: int | None = field(default=None, repr=False)
    _rebuilds: dict[int, int] = field(default_factory=dict, repr=False)

    def holds(self, messages: Sequence[ModelMessage]) -> bool:
        """Whether `messages` is the history this plan was made for (the same objects, in order)."""
        return len(messages) == len(self.history) and all(map(operator.is_, messages, self.history))

    @property
    def head(self) -> list[ModelMessage]:
        return self.history[:self.cut]

    @property
    def record(self) -> str | None:
        """The record of the summarised part written without a model (`summary.record_of`), or None
        when no record would list every step."""
        if self._record is _UNSET:
            self._record = summary.record_of(self.head)
        return self._record if isinstance(self._record, str) else None

    @property
    def record_tokens(self) -> int | None:
        """Provider tokens of `record`, or None."""
        record = self.record
        return None if record is None else self.keeper.scaled(tokens.text_tokens(record))

    @property
    def kept(self) -> list[ModelMessage]:
        """The tool results in use that the compaction would keep after the summary (`Keeper.kept_results`)."""
        if self._kept is None:
            self._kept = self.keeper.kept_results(self.head, self.overhead, after=self.history[self.cut:])
        return self._kept

    @property
    def kept_head(self) -> int:
        """Provider tokens of the compaction message the history starts with, which a compaction
        keeping a record leaves in place and appends to (`Compactor`): 0 when there is none, or
        when no cut leaves anything after it to record."""
        if self.cut > 1 and is_compaction_message(self.history[0]):
            return self.keeper.scaled(self.keeper.estimated(self.history[:1]))
        return 0

    def rebuild(self, summary_tokens: int) -> int:
        """Provider tokens of the history right after the compaction (without `overhead`), with a
        summary of `summary_tokens`: the summary, the user's messages, the ledger, the restored
        files, the results in use and the tail. The schedule prices compactions with it."""
        size = self._rebuilds.get(summary_tokens)
        if size is None:
            size = self._rebuilds[summary_tokens] = self.keeper.rebuild_size(self, summary_tokens)
        return size

    def framed(self) -> int:
        """Provider tokens, with `overhead`, of an empty summary message and the tail: what every
        `rebuild` starts from."""
        if self._frame is None:
            head, tail = self.head, self.history[self.cut:]
            users = summary.pick_user_messages(self.keeper.user_texts(head), self.keeper.limits.user_messages_budget)
            files = ledger.changed_files(self.history, attempts=True, writers=self.keeper.file_tools)
            msg = summary.summary_message("", None, users, "full", files, ledger.read_files(head))
            self._frame = self.keeper.scaled(self.keeper.estimated([msg, *tail]) + self.overhead)
        return self._frame

    @property
    def shaved(self) -> int:
        """Provider tokens the view layers leave out of the tail (`Keeper.sent_size`: a long result as its
        preview): a refusal weighs `framed() - shaved` against the context as /context counts it. Counted
        whole, a /compact after a long command 'would keep at least 9,293 tokens, more than the 2,771 in
        use now'. (`rebuild`, which prices compactions, counts the tail as saved.)"""
        if self._shaved is None and (sent := self.keeper.sent_size) is not None and (tail := self.history[self.cut:]):
            self._shaved = max(0, self.keeper.scaled(self.keeper.estimated(tail) + self.overhead) - sent(tail))
        return self._shaved or 0


@dataclass
class Keeper:
    """The part of the compactor that decides what a compaction keeps: the verbatim tail, the
    results in use, the files restored. `Compactor` (compactor.py) makes the compaction."""

    limits: Limits
    restorer: Restorer = field(default_factory=Restorer)
    escalation: int = 0  # set by the thrash guard for the next compaction; reset after it
    ratio: float = 1.0  # provider tokens per estimated token (the pipeline's calibration), for sizes
    typed: Callable[[str], bool] | None = None  # which user-role texts a person typed (None: all but ours)
    # Sizes the verbatim tail by what forgetting costs (schedule.py `choose_tail`): given the
    # default budget, the budget to keep. None: the default, capped at KEEP_RESULTS tool results.
    tail_for: Callable[[int], int] | None = None
    # Which tool results the model is still using (reuse.py `Reuse.hot`): a compaction keeps those
    # it would summarize, verbatim with their calls, after the summary. None: none are kept.
    hot: Callable[[str], bool] | None = None
    # Whether the model goes back to the files it changed (reuse.py): when not, a compaction does
    # not re-read them. None: it always does.
    returns_to_changed: Callable[[], bool] | None = None
    # The size of a request of these messages as the view layers would send it (a long result as
    # its preview; the results a compaction keeps, whole), the fixed prompt included: whether a
    # compaction shrinks the request is judged on it. None: on the history as saved.
    sent_size: SentSize | None = None
    # Which of the tool results of these messages a request would send as they are (their call ids), no
    # view layer's decision standing in for them: a read the kept tail holds cleared is not the model's.
    # None: all of them (set by the manager, compacting.py).
    sent_whole: Callable[[Sequence[ModelMessage]], Collection[str]] | None = None
    # The caller's own tools that write the file their path argument names, in lower case
    # (`CompactionSettings.file_tools`): the compaction message lists those files as changed too.
    file_tools: tuple[str, ...] = ()
    # The window of the model writing the summary, when it is one of its own with a smaller window
    # than the run's (set by the manager for each compaction): the summary request must fit it too.
    summary_window: int | None = None
    # How big messages are in the units `ratio` scales (the manager's `estimate`: its token counter's,
    # without the thinking the provider leaves out of its count). None: characters/4 of all of them.
    estimate: Callable[[Sequence[ModelMessage]], int] | None = None
    # Told a summary request's refusal as too long: whether it named a window below the one in use,
    # which the caller learned (set by the manager for each compaction whose summary the run's model
    # writes). The request is then cut to the room that window leaves. None: nothing is learned.
    learn_window: Callable[[BaseException], bool] | None = None
    _plan: KeepPlan | None = field(default=None, init=False, repr=False, compare=False)

    def scaled(self, estimated: int) -> int:
        """An estimate in the provider's tokens, comparable with `tokens_before` and the threshold."""
        return math.ceil(estimated * self.ratio)

    def estimated(self, messages: Sequence[ModelMessage]) -> int:
        """The size of `messages` before `scaled` (`estimate`): a tail sized by characters/4 of thinking
        the provider does not count kept 12 messages where 21 fitted the budget as it counts them."""
        return (self.estimate or tokens.estimate)(messages)

    # -- the one question --------------------------------------------------------------------
    def preview(self, messages: Sequence[ModelMessage], overhead: int = 0) -> KeepPlan:
        """What a full compaction of `messages` now would keep: the answer given last when it still
        holds (see the module's docstring), else a new one."""
        budget, results = self.tail_budget(overhead), self.keep_results
        key = (overhead, budget, results, self.ratio, self.escalation, self.limits)
        plan = self._plan
        if plan is not None and plan.key == key and plan.holds(messages):
            return plan
        history = list(messages)
        start = tail_start(history, budget, results, self.estimated)
        plan = KeepPlan(history, key, start, start or len(history), self.estimated(history[start:]), overhead, self)
        self._plan = plan
        return plan

    def drop_plan(self) -> None:
        """Forget the last answer: what it could not compare may have changed (the module's docstring)."""
        self._plan = None

    def rebuild_size(self, plan: KeepPlan, summary_tokens: int) -> int:
        """`plan.rebuild(summary_tokens)`, worked out (the plan keeps it)."""
        if not plan.history:
            return 0
        tail = plan.history[plan.cut:]
        base = plan.framed() + summary_tokens
        limits = self._restore_limits(base)
        paths, _ = self.restorable(plan.history, tail, limits)
        restored = sum(min(self.restorer.file_tokens(p), limits.restore_tokens_per_file) for p in paths)
        kept = self.estimated(plan.kept) if self.hot is not None else 0
        return base - self.scaled(plan.overhead) + self.scaled(restored + kept)

    # -- its parts ----------------------------------------------------------------------------
    def user_texts(self, messages: Sequence[ModelMessage]) -> user_messages.Typed:
        """What the user typed in `messages`, carried verbatim through the compaction: our own
        synthetic messages never count, and `typed` (when given) also leaves out what a harness
        injected as user-role text (reminders, environment context)."""
        texts = summary.user_texts(messages)
        return texts if self.typed is None else user_messages.only(texts, self.typed)

    def base_tail(self, overhead: int = 0) -> int:
        """An eighth of the room the threshold leaves the conversation (less `overhead`, the system prompt and
        tools), at least 500 tokens: the tail's budget, and the most the results in use or images kept take."""
        return max(500, (self.limits.threshold - self.scaled(overhead)) // 8)

    def tail_budget(self, overhead: int = 0) -> int:
        """Tokens of verbatim tail a compaction keeps: `base_tail`, or what `tail_for` makes of it, halved per
        escalation step of the thrash guard. The newest round is kept whatever its size."""
        base = self.base_tail(overhead)
        return (self.tail_for(base) if self.tail_for is not None else base) >> self.escalation

    @property
    def keep_results(self) -> int | None:
        """The cap on tool results in the tail: KEEP_RESULTS, none when the tail is priced."""
        return None if self.tail_for is not None else KEEP_RESULTS

    def kept_results(self, summarized: Sequence[ModelMessage], overhead: int = 0,
                     room: int | None = None, after: Sequence[ModelMessage] = (),
                     restored: Collection[Path | str] = ()) -> list[ModelMessage]:
        """The tool results the model is still using among those a compaction replaces, each with
        its call, newest first within the default tail budget (each no larger than a restored
        file) and within `room` (estimated tokens, `results_room`) when given, in their original
        order. The model reached back into each of them recently; a summary would name them, and
        the model would read them again. A call run again (the same tool with the same arguments)
        is kept once, as its newest run that tells what it returns answered (runs.py `chosen`):
        kept, the `FAILED` of a test run the model had cited stood right after the summary, and the
        run after the fix (`5 passed`) was gone. None is kept when such a run is among `after` (the
        messages kept verbatim after these), a read of a file `restored` whole (read again from disk now),
        or a failed call on a file a later call on it superseded (runs.py `superseded_failures`)."""
        if self.hot is None:
            return []
        calls = {p.tool_call_id: p for m in summarized if isinstance(m, ModelResponse)
                 for p in m.parts if isinstance(p, ToolCallPart)}
        rerun, stale = runs_in(after), superseded_failures([*summarized, *after], self.restorer.resolve)
        returned = [p for m in summarized if isinstance(m, ModelRequest)
                    for p in m.parts[::-1] if isinstance(p, ToolReturnPart) and p.tool_call_id in calls]  # as kept before
        runs: dict[tuple[str, str], list[ToolReturnPart]] = {}
        for p in returned:
            runs.setdefault(run_key(calls[p.tool_call_id]), []).append(p)
        order = {p.tool_call_id: i for i, p in enumerate(returned)}
        budget = self.base_tail(overhead) if room is None else min(self.base_tail(overhead), room)
        picked: list[ToolReturnPart] = []
        used = 0
        seen: set[tuple[str, str]] = set()  # the calls answered, each by its newest run
        for p in reversed(returned):
            key = run_key(calls[p.tool_call_id])
            if key in seen or not self.hot(p.tool_call_id):
                continue
            seen.add(key)
            result = chosen(runs[key], self.hot, rerun.get(key, ()))
            if result is None or result.tool_call_id in stale or reads_one_of(
                    call := calls[result.tool_call_id], restored, self.restorer.resolve):
                continue
            size = tokens.message_tokens(ModelRequest(parts=[result])) + tokens.message_tokens(ModelResponse(parts=[call]))
            if size > self.limits.restore_tokens_per_file or used + size > budget:
                continue
            picked.append(result)
            used += size
        meta = {KEY: {"synthetic": KEPT}}
        return [msg for result in sorted(picked, key=lambda r: order[r.tool_call_id])
                for msg in (ModelResponse(parts=[calls[result.tool_call_id]], metadata=meta),
                            ModelRequest(parts=[result], metadata=meta))]

    def results_room(self, base: int, before: int) -> int:
        """Estimated tokens the results in use may take once `base` (provider tokens, the overhead
        included: the summary message, the tail and the files restored) is counted: less than what
        is left under `before`, the context the compaction must shrink. Their own budget, an eighth
        of the room the threshold leaves and at least 500 tokens, does not know the summary's size:
        in a 6K window, where a summary may take the whole output reserve (1,500 tokens), the
        results kept beside it and the newest round made the history right after a compaction
        larger than the one before it, the shorter tails tried next kept the same results, and
        every automatic compaction was refused until the circuit breaker stopped them. Only where
        they would have made the compaction fail does this leave any out (a cap at a share of the
        room under the threshold also bound at 32K-64K windows, where the replay then stalled
        more)."""
        return max(0, int((before - base - 1) / self.ratio))

    def restorable(self, messages: Sequence[ModelMessage], kept: Sequence[ModelMessage],
                   limits: Limits) -> tuple[list[Path], ledger.Ledger]:
        """Which files come back after a compaction: the files changed since the previous one (the
        model is working on them), newest first, within the budgets. A file that was only read,
        or changed before the previous compaction and not touched since, comes back as a path in
        the summary message: re-reading it costs the model one call, restoring it costs its tokens
        uncached now and cached on every later request."""
        files = ledger.changed_files(messages)
        working = ledger.changed_files(messages, carried=False)
        if not working or limits.restore_max_files <= 0:
            return [], files
        if self.returns_to_changed is not None and not self.returns_to_changed():
            return [], files
        changed = {self.restorer.name(p) for p in working}
        candidates = [p for p in self.restorer.recent_files() if p in changed]
        exclude = {self.restorer.name(p) for p in read_paths_in(kept)}
        return pick_files(candidates, limits, exclude, self.restorer.file_tokens), files

    def _restore_limits(self, base: int) -> Limits:
        """Restore budgets after escalation, and at most half the room left under the threshold
        once the rest of the new history (`base`, provider tokens with the overhead) is counted:
        with a small window and a large system prompt the defaults would restore the context
        straight back over it."""
        limits = escalated(self.limits, self.escalation)
        room = max(0, int((self.limits.threshold - base) / self.ratio) // 2)
        if room < limits.restore_total_tokens:
            limits = dataclasses.replace(limits, restore_total_tokens=room)
        return limits

    def cannot_shrink(self, messages: list[ModelMessage], before: int, overhead: int) -> NotSmaller | None:
        """The refusal a summary of `messages` would end in whatever it said, known before asking
        for it: when the summary message with no summary at all and the verbatim tail, at each
        shorter tail the compactor's retries would try, already hold `before` tokens or more (a
        conversation of a few short steps). None when some summary could shrink it."""
        level, kept = self.escalation, self._plan
        try:
            floors = []
            for self.escalation in range(level, 3):
                plan = self.preview(messages, overhead)
                floors.append((plan.framed() - (plan.shaved if plan.framed() >= before else 0), plan))  # as sent
                if floors[-1][0] < before:
                    return None
        finally:
            self.escalation, self._plan = level, kept  # the answer the schedule priced, as it was
        floor, plan = min(floors, key=lambda f: f[0])
        verbatim = self.scaled(self.estimated(plan.history[plan.cut:])) - plan.shaved  # as sent, as the floor
        parts = {"summary": floor - verbatim - self.scaled(overhead), "files": 0, "file_paths": [], "other": 0,
                 "verbatim": verbatim, "verbatim_messages": len(plan.history) - plan.cut, "fixed": self.scaled(overhead)}
        return NotSmaller(f"compaction would not shrink the context ({before:,} → at least {floor:,} tokens)",
                          before=before, after=floor, parts=parts, unasked=True)

    def learned_room(self, overhead: int, prompt: str) -> Callable[[BaseException], int | None] | None:
        """What a summary request's "prompt too long" tells (`cuts.summarize_fitting`): the room its
        messages have in a smaller window it taught (`learn_window`), else None."""
        learn = self.learn_window
        if learn is None:
            return None
        return lambda refusal: self.summary_room(overhead, prompt) if learn(refusal) else None

    def summary_room(self, overhead: int, prompt: str = "") -> int:
        """Estimated tokens the summary request's messages may take: the window less the output
        reserve and the estimate's margin, in provider tokens converted back, less the fixed part
        and whatever of the instruction `prompt` the reserve does not hold. The request's output
        cap is what the window leaves (`ManagerState.summary_output_cap`): the reserve holds the
        summary with room for its instruction (`SUMMARY_INSTRUCTION_TOKENS`, the reserve follows
        the summaries' size: `Schedule.output_limits`), so messages up to this leave the cap at
        least the summary's size (counting the instruction twice cut the oldest round of a summary
        request sent at the hard limit, which then shared no cached prefix past the first message).
        A summary model of its own with a smaller window (`summary_window`) is sent no more than
        that window leaves once the room for the summary (the reserve's, a quarter of that window at
        most: `side_room`) and the whole instruction are kept free (a 2,000-token window's quarter
        cannot hold the 644-token instruction: cut to leave only the quarter, it was too long to
        send). A run's `per_request_input_tokens_limit` (`in_run.input_limit`) holds the whole
        request too, its margin kept: the caller's own guard on a request's size."""
        ratio, whole = max(self.ratio, 0.1), tokens.text_tokens(prompt)
        room = self.limits.window - self.limits.output_reserve - estimate_margin(self.limits.window)
        fits = int(room / ratio) - overhead - max(0, whole - int(SUMMARY_INSTRUCTION_TOKENS / ratio))
        if (side := self.summary_window) is not None:  # a summary model of its own: its window holds it too
            summary = max(0, self.limits.output_reserve - SUMMARY_INSTRUCTION_TOKENS)
            fits = min(fits, int(side_room(side, summary)[1] / ratio) - overhead - whole)
        most = in_run.input_limit()
        return fits if most is None else min(fits, int((most - estimate_margin(most)) / ratio) - overhead - whole)
