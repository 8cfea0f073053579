"""A compaction as the pipeline runs it: `ContextManager`'s L5, apart from the capability's hooks.

`compact` wraps one compaction in its trace span and reports a blocked one; `_compact` runs it: the
`before_compact` hook, then the session notes if they can serve, else the compactor's summary (or a record
written without a model, or an update kept after the previous compaction message, where the schedule prices
that cheaper; the record too where the summary request cannot fit the window: `_record_instead`), and persists
and accounts the result (`apply_result`, state.py). The thrash guard (`thrash_level`) escalates a compaction
that comes too soon after the previous one, and `_auto` makes an automatic one (the threshold, the window, a
refusal), counting a failure toward the circuit breaker instead of ending the turn (one opened on an archive
the store could not write is tried again some requests later, doubled while it still cannot; others
after a cool-down: breaker_retry.py); a refusal that no compaction can answer, the instructions and tool
definitions leaving no room for even a record, ends the run in one line (full_window.py); one the run's
`UsageLimits` stop ends as one that failed, and the run with the limit's error. `CompactingState` is part of
`ContextManager` (pipeline.py), which adds the pydantic-ai hooks that call it.
"""

from __future__ import annotations

import contextlib
import functools
from collections.abc import Callable, Collection, Iterator, Sequence
from typing import Any

from pydantic_ai.exceptions import ModelContextWindowExceededError, UsageLimitExceeded
from pydantic_ai.messages import ModelMessage, ModelRequest, ModelResponse, ToolReturnPart

from . import breaker_retry, handlers, shaping
from .compaction.result import (
    LEAST_FREED,
    ArchiveNotWritten,
    CompactionBlocked,
    CompactionError,
    CompactionResult,
    NoSummary,
    NotSmaller,
    RecordTooWeak,
    SummaryNotSent,
    no_summary,
)
from .compaction.summarizer import with_output_cap
from .compaction.summary_prompt import EmptySummary
from .contract import keep_system_prompts, stamp_new
from .full_window import no_record_fits, record_ceiling, useful
from .plumbing import tokens
from .plumbing.events import Event, one_line
from .plumbing.overflow import figures, refusal_text
from .plumbing.tracing import failed
from .state import ManagerState
from .wiring import Internals


class CompactingState(ManagerState):
    """The manager's state with L5 as the pipeline runs it (module docstring)."""

    def _setup(self, internals: Internals, **options: Any) -> None:
        super()._setup(internals, **options)
        # The thrash guard's last compaction (tokens before, after) taken back from the saved state,
        # and the answers the history held right after it (`recall_thrash`).
        self._thrash_last: tuple[int, int] | None = None
        self._kept_answers = 0
        if self.compactor.sent_whole is None:  # the tail's results the model has, as `sent_size` measures
            self.compactor.sent_whole = self.results_sent_whole  # every compaction's, a partial one's too

    @property
    def breaker_open(self) -> bool:
        """Automatic compaction paused: failures in a row, and no retry due (breaker_retry.py)."""
        return super().breaker_open and not breaker_retry.due(self)

    async def compact(self, messages: list[ModelMessage], *, trigger: str, instructions: str = "",
                      summary_input: list[ModelMessage] | None = None, keep_from: int | None = None,
                      view: list[ModelMessage] | None = None, confirm: handlers.Confirm | None = None,
                      tokens_before: int | None = None, going_ahead: Callable[[], None] | None = None
                      ) -> CompactionResult:
        """Compact `messages` (the persisted history) and rewrite the session; raises CompactionError
        (CompactionBlocked when `before_compact` or `confirm` said no: handlers.py). `tokens_before`:
        the size of `view` as the provider counted it, where it said (a refusal names it).
        `going_ahead` is called once the store holds the compacted history, before the compaction
        is accounted (`compact_now` commits the shaping of its summary request's view there)."""
        assert self.compactor is not None
        before = tokens_before or self.measure(
            view if view is not None else summary_input if summary_input is not None else messages)
        if self.on_compact_start:
            self.on_compact_start(trigger, before)
        # One span per compaction under the run's span (a no-op unless instrumentation is on).
        with self._tracer.start_as_current_span("context compaction", attributes={
                "compact_agent.trigger": trigger, "compact_agent.tokens_before": before}) as span:
            try:
                result = await self._compact(messages, trigger, instructions, summary_input, before, keep_from,
                                             confirm, going_ahead)
            except CompactionBlocked as e:
                span.set_attribute("compact_agent.blocked", e.reason)
                handlers.blocked(self, trigger, before, e)
                raise
            except Exception as e:
                failed(span, e)
                raise
            span.set_attributes({"compact_agent.strategy": result.strategy,
                                 "compact_agent.tokens_after": result.tokens_after,
                                 "compact_agent.messages_summarized": result.summarized})
            return result

    async def _compact(self, messages: list[ModelMessage], trigger: str, instructions: str,
                       summary_input: list[ModelMessage] | None, before: int, keep_from: int | None = None,
                       confirm: handlers.Confirm | None = None, going_ahead: Callable[[], None] | None = None
                       ) -> CompactionResult:
        assert self.compactor is not None and self.summarizer is not None
        instructions, hook_ms = await handlers.timed_before(self, trigger, instructions)
        if self.before_compact is not None:
            self.compactor.drop_plan()  # the hook may have changed the files a compaction restores
        archive = self.store.archive if self.store is not None else handlers.no_archive
        result: CompactionResult | None = None
        level = self.thrash_level(trigger)
        self.compactor.escalation = level
        self.compactor.ratio = self.calibration.ratio
        vet = functools.partial(self._vet, messages)  # before anything is archived: refused, none is
        if self.memory is not None and not instructions:
            result = await self.memory.try_compact(self, messages, trigger=trigger, tokens_before=before,
                                                   archive=archive, vet=vet)
        if result is None:
            reason, priced = self._reason, trigger != "manual"  # /compact asks for a summary of it all
            prefer_record = functools.partial(self.schedule.record_pays, self, messages, tokens_before=before,
                                              reason=reason)  # given the record's size
            prefer_incremental = functools.partial(self.schedule.incremental_pays, self, messages, reason=reason)

            summarize = self.summarizer(self)
            earlier = handlers.requests_made(summarize)  # a factory may hand out one shared log
            records = self.settings.compaction_records and not self.handler_instructs and not instructions
            with self.summary_sized(summarize):
                try:
                    result = await self.compactor.compact(
                        messages, summarize=summarize, archive=archive, trigger=trigger,
                        instructions=instructions, tokens_before=before, overhead=self.overhead,
                        level=level, summary_input=summary_input, keep_from=keep_from,
                        prefer_record=prefer_record if priced else None,
                        prefer_incremental=prefer_incremental if priced else None,
                        ceiling=self.schedule.hard_limit(self) if priced else None,
                        record_cap=self.schedule.summary_size(self.limits) if priced else None,
                        paying_cap=self.schedule.measured_summary_size(self.limits) if priced else None,
                        record_fallback=priced and records, vet=vet,
                        short_of=None if priced else lambda made: LEAST_FREED - before + self.sent_as_vetted(
                            messages, made))  # a /compact's summary frees at least that, with a shorter tail
                except (SummaryNotSent, ModelContextWindowExceededError, EmptySummary) as unsent:
                    if not records or (isinstance(unsent, EmptySummary) and not priced):  # /compact: said
                        raise
                    result = await self._record_instead(messages, unsent, archive, trigger, before, level, vet)
            handlers.add_summary_usage(result, summarize, earlier)
        # What pydantic-ai will not put back (it adds system prompts only to an empty history) and
        # what its `new_messages()` reads (the run's id): see contract.py.
        if self.keep_system_prompts:
            self._with_system_prompts(messages, result)
        stamp_new(messages, result.messages, *self._run_ids)
        self._count_as_sent(result)
        handlers.add_hook_time(result, hook_ms)
        await handlers.confirmed(confirm, result)
        self._kept_answers = sum(isinstance(m, ModelResponse) for m in result.messages)  # saved by apply_result
        if self.failures >= self.limits.max_consecutive_failures:  # made while paused: said once, with it
            result.event.detail["resumed"] = True
        self.apply_result(result, going_ahead)
        await handlers.after(self, result)
        return result

    async def _record_instead(self, messages: list[ModelMessage], unsent: Exception, archive: Callable[[], Any],
                              trigger: str, before: int, level: int,
                              vet: Callable[[CompactionResult], None]) -> CompactionResult:
        """A record of the steps written without a model, where the summary request could not fit the
        window (`SummaryNotSent`, or the provider refused it as too long), or an automatic compaction's
        summary request was answered with no summary (`EmptySummary`: a refusal, markup alone; failed,
        it left the context full and the breaker counting): it needs no request. Raised
        instead, the refused request that asked for a compaction ended the run as if one had been made
        and had not helped ("too long … even after compaction"), and a session whose summary request
        never fits failed every later run and /compact the same way. `unsent` is raised again where
        no record shrinks the context either. Where the window forced the compaction, a record that
        frees too little for the next step's reply is made again keeping less, then not made
        (`RecordTooWeak`, full_window.py)."""
        assert self.compactor is not None
        ceiling = record_ceiling(self, trigger)
        sent = functools.partial(self.sent_as_vetted, messages)
        weak: RecordTooWeak | None = None
        for lvl in range(level, 3 if ceiling is not None else level + 1):  # keeping less each time
            try:
                result = await self.compactor.compact(messages, summarize=no_summary, archive=archive, trigger=trigger,
                                                      tokens_before=before, overhead=self.overhead, level=lvl,
                                                      prefer_record=lambda size: True, vet=useful(ceiling, sent, vet))
            except RecordTooWeak as e:
                weak = e
                continue
            except (NotSmaller, NoSummary):
                break
            result.event.detail["summary_unsent"] = one_line(unsent)
            return result
        raise weak or unsent from None

    @contextlib.contextmanager
    def summary_sized(self, summarize: object) -> Iterator[None]:
        """The summary requests `summarize` makes while this is open sized as every compaction's are,
        a whole one's or a partial one's (`Compactor.compact_partial`, which the caller runs): cut to
        fit the window (`Keeper.summary_room`), asking for what it leaves (`max_tokens`: not the
        agent's own), a request that cannot fit it not sent (`SummaryNotSent`), a model's output
        cap a refusal names learned, and the plain-text fallback's transcript cut to the same room.
        A summary model of its own whose window is smaller than the run's (measuring.py's
        `side_window`) is sized by that window."""
        assert self.compactor is not None
        model = getattr(summarize, "model", None)
        side = self.side_window(model)
        own = model is not None and model is self.run_model  # another may count thinking the run's provider does not
        compactor = self.compactor
        with_output_cap(summarize, functools.partial(self.summary_output_cap, window=side, own=own),
                        functools.partial(self.check_summary_fits, window=side, own=own), self.learn_output_limit,
                        lambda prompt: compactor.summary_room(self.overhead, prompt))
        self.compactor.ratio = self.calibration.ratio  # estimates in provider tokens, as the schedule's
        self.compactor.summary_window = side
        # The run's own model refusing the summary as too long names the run's window; another's, its own.
        compactor.learn_window = self.learn_from_summary if model is not None and model is self.run_model else None
        try:
            yield
        finally:
            self.compactor.summary_window = None
            compactor.learn_window = None

    def learn_from_summary(self, refusal: BaseException, request: str = "summary") -> bool:
        """A summary request (`request` "notes": one for the session notes) refused as too long,
        naming the server's limit: below the window, it is
        learned as a refused chat request's is (`learn_window`: kept, said and saved), and whether it
        was is returned (the request is then cut to it). A server whose window is smaller than the
        one given refused every summary request, each asking for what the given window left, and the
        next /compact did the same. The calibration learns nothing from it: the refusal's figures are
        the summary request's, which the calibration's estimate of the view last sent does not cover."""
        window, learned = self.limits.window, self.window_learned
        _, limit = figures(refusal_text(refusal))
        if limit is not None:  # one above a run's limit the request is held to is learned, and cuts nothing
            self.learn_window(limit, 0, "reactive", request=request)
        if self.window_learned is not learned:
            self._save_layer_state()  # a compaction that still fails saves nothing else
        return self.limits.window < window

    def _with_system_prompts(self, messages: list[ModelMessage], result: CompactionResult) -> None:
        """Put the system prompts of the history's first request back at the start of the compacted
        history (contract.py), and count them in its size: measured without them, `tokens_after`
        fell short by the prompts, and a compaction they left no smaller (a `system_prompt=` that
        fills the window) went ahead, rewrote the user's prompt into a record, and the request was
        refused anyway. `_vet` refuses that one (`NotSmaller`), measured as the next request sends
        it, prompts included."""
        kept = keep_system_prompts(messages, result.messages)
        if kept is result.messages or self.compactor is None:
            result.messages = kept
            return
        added = (self.compactor.scaled(tokens.estimate(kept))
                 - self.compactor.scaled(tokens.estimate(result.messages)))
        result.messages = kept
        result.tokens_after = result.event.tokens_after = result.tokens_after + added
        parts = result.event.detail.get("parts")
        if isinstance(parts, dict):
            parts["verbatim"] = parts.get("verbatim", 0) + added

    def sent_size(self, messages: Sequence[ModelMessage], kept: Collection[str] = ()) -> int:
        """The size of a request of `messages` as the view layers would send it now (a long result as
        its preview), changing nothing: what /context counts, and what a compaction must shrink.
        `kept`: the call ids of the results a compaction keeps for the model, sent whole once it goes
        ahead, whatever a layer decided of them before (`CompactionResult.kept`)."""
        return self.measure(shaping.preview(self, list(messages), kept).messages)

    def results_sent_whole(self, messages: Sequence[ModelMessage]) -> set[str]:
        """The call ids of the tool results of `messages` that a request would send as they are, no view
        layer's decision (microcompact's placeholder, a preview, a snip, a collapse) standing in for them:
        the reads a compaction keeps in its tail that the model has (ledger.read_files)."""
        sent = {p.tool_call_id: p.content for m in shaping.preview(self, list(messages)).messages
                if isinstance(m, ModelRequest) for p in m.parts if isinstance(p, ToolReturnPart)}
        return {p.tool_call_id for m in messages if isinstance(m, ModelRequest) for p in m.parts
                if isinstance(p, ToolReturnPart) and p.tool_call_id in sent and sent[p.tool_call_id] == p.content}

    def _count_as_sent(self, result: CompactionResult) -> None:
        """Count the history a compaction made as the next request sends it, shaped by the view
        layers (a long result kept in its tail as its preview), as its 'before' counts the request
        it replaces and /context counts them both. Counted as saved, the kept tail's long output
        was whole in the 'after' alone: 'compacted (auto, full): 12,227 → 4,213 tokens', then the
        request sent 725. The saved size stays in the event's detail (`history_after`); the tail's
        part (`verbatim`) takes the difference. A compaction that request would be no smaller than
        the one before was refused before its archive was written (`_vet`, and the compactor)."""
        saved = result.tokens_after
        after = self.sent_size(result.messages, result.kept)
        parts = result.event.detail.get("parts")
        if isinstance(parts, dict) and "verbatim" in parts:
            parts["verbatim"] = max(0, int(parts["verbatim"]) + after - saved)
        result.event.detail["history_after"] = saved
        result.tokens_after = result.event.tokens_after = after

    def sent_as_vetted(self, messages: Sequence[ModelMessage], result: CompactionResult) -> int:
        """The size of the request a compaction of `messages` leaves, as `_vet` measures it: the system
        prompts put back."""
        kept = keep_system_prompts(messages, result.messages) if self.keep_system_prompts else result.messages
        return self.sent_size(kept, result.kept)

    def _vet(self, messages: Sequence[ModelMessage], result: CompactionResult) -> None:
        """Raise `NotSmaller` for a compaction of `messages` whose history, with the system prompts put
        back (`_with_system_prompts`), the next request would send no smaller than the one before:
        the compactor asks before it writes the archive (a compaction refused after it left its
        archive behind). Without prompts put back it is the compactor's own check, made already."""
        kept = keep_system_prompts(messages, result.messages) if self.keep_system_prompts else result.messages
        if kept is result.messages:
            return
        after = self.sent_size(kept, result.kept)
        if after >= result.tokens_before:
            raise NotSmaller(f"compaction would not shrink the context ({result.tokens_before:,} → {after:,} tokens)",
                             before=result.tokens_before, after=after, parts=result.event.detail.get("parts"))

    def thrash_level(self, trigger: str) -> int:
        """Escalation for an automatic compaction that comes too soon after the previous one.

        Compacting every few requests costs a summary call each time and rewrites the cached
        prefix each time; if the last compaction bought fewer than `thrash_requests` requests or
        freed under a third of the context, this one keeps less and restores less.
        """
        last = self._last_compaction()
        if trigger == "manual" or last is None:
            self._thrash = 0
            return 0
        before, after = last
        soon = self.requests - self._last_compaction_request <= self.settings.thrash_requests
        weak = after > before * 2 // 3
        self._thrash = min(2, self._thrash + 1) if (soon or weak) else 0
        if self._thrash:
            self.emit(Event("thrash", "escalate", before, after, trigger=trigger,
                            detail={"level": self._thrash, "requests_since_last":
                                    self.requests - self._last_compaction_request}))
        return self._thrash

    def _last_compaction(self) -> tuple[int, int] | None:
        """The latest compaction's tokens (before, after): this process's, else the one the saved state named."""
        if self.compactions:
            return self.compactions[-1].tokens_before, self.compactions[-1].tokens_after
        return self._thrash_last

    def thrash_state(self) -> list[int] | None:
        """What the thrash guard goes by, saved beside the history (saved_state.py): its level, the latest
        compaction's tokens before and after, and the answers the history held right after it."""
        last = self._last_compaction()
        return None if last is None else [self._thrash, *last, self._kept_answers]

    def recall_thrash(self, saved: object) -> None:
        """Take back `thrash_state` after a restart. A resumed conversation counts a request per answer
        it holds (`learn_conversation`), so the requests since that compaction are those past the answers
        it kept. Forgotten, each `-c` run began with the guard at rest: a script of long typed messages
        in a 4K window compacted on every run, each freeing 15%, one summary request per two others."""
        if not (isinstance(saved, list) and len(saved) == 4 and all(type(n) is int and n >= 0 for n in saved)):
            return
        level, before, after, kept = saved
        self._thrash, self._thrash_last, self._kept_answers = min(level, 2), (before, after), kept
        self._last_compaction_request = kept

    def _last_sent(self, messages: list[ModelMessage]) -> int | None:
        """How many of `messages` the last request sent covered, when `messages` only grew since."""
        n, last = self._sent
        if not self.view or n <= 0 or n > len(messages) or messages[n - 1] is not last:
            return None
        return n

    async def _auto(self, messages: list[ModelMessage], view: list[ModelMessage], trigger: str,
                    tokens_before: int | None = None) -> bool:
        if trigger == "reactive" and (none_helps := no_record_fits(self, messages, tokens_before)) is not None:
            raise none_helps  # the provider refused it, and no compaction can make room (full_window.py)
        keep_from = self._last_sent(messages)
        summary_input = view
        if keep_from is not None and keep_from < len(messages):
            summary_input = self.view
        else:
            keep_from = None
        started, before = self.clock(), tokens_before or self.measure(view)  # a failure's event says it too
        try:
            await self.compact(list(messages), trigger=trigger, summary_input=summary_input, keep_from=keep_from,
                               view=view, tokens_before=before)
        except CompactionBlocked:  # not a failure: the caller said no (handlers.blocked reported it)
            return False
        except UsageLimitExceeded as e:  # the run's own limit, a summary request counted in it (in_run.py)
            # The run ends, and the compaction with a failed event: its start was said. Not toward the breaker.
            self.emit(Event("compact", "failed", before, before, trigger=trigger,
                            duration_ms=handlers.ms_since(self.clock, started),
                            detail={"error": f"usage limit: {one_line(e)}", "usage_limit": True}))
            raise
        except (CompactionError, ValueError, Exception) as e:  # noqa: BLE001 - a failed compaction never ends the turn
            # Counted toward the circuit breaker either way. One that would not shrink the context
            # was skipped, not broken: `skipped` says so to whoever shows the event. An archive not
            # written pauses until a retry (breaker_retry.py); one that fails again was said: `retry`
            # (not one tried at once after a restart, `archive_retry_at` 0: this run was not told).
            limit, unwritten = self.limits.max_consecutive_failures, isinstance(e, ArchiveNotWritten)
            again = unwritten and bool(self.archive_retry_at) and self.failures >= limit
            self.failures += 1
            wait, cool = breaker_retry.pause(self, limit, unwritten)  # when it is tried again: requests, or seconds
            self.emit(Event("compact", "failed", before, before, trigger=trigger,
                            duration_ms=handlers.ms_since(self.clock, started),  # hooks and a summary request too
                            detail={"error": one_line(e), "failures": self.failures,
                                    **({"skipped": True} if isinstance(e, NotSmaller) else {}),
                                    **({"retry": True} if again else {"paused": True} if self.breaker_open else {}),
                                    **({"retry_after": wait} if wait is not None else {}),
                                    **({"retry_in_s": cool} if cool is not None else {})}))
            return False
        breaker_retry.closed(self)  # no failures in a row, no pause
        messages[:] = self.compactions[-1].messages
        return True
