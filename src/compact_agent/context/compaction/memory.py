"""Session memory: notes kept current in the background, so compaction needs no summary call.

A full compaction asks the model for a summary at the worst moment: the context is full and the
user waits. Instead, after model responses (inside long tool loops too) a background request
updates a markdown notes file with fixed sections, incrementally: the previous notes plus what
happened since the message they last covered. When the threshold is crossed, `try_compact` builds
the new history from the notes and a verbatim tail with no model call (milliseconds of work), or
returns None so the pipeline falls back to the full summary.

The extraction shares the main conversation's cached prefix (the same system prompt, tools,
settings but for its own `max_tokens`, and view, the instruction appended last, `tool_choice: none` but on Anthropic, calls refused), so its
input is a cache hit; with a cheaper notes model it sends only the new messages as text instead, as
it does to the run's model whose reply called the agent's output tool (asked again, it calls it again).
It never runs twice at once, is never awaited by the turn, and a failure backs off and retries.

Messages carry no stable id, so coverage is (index, fingerprint): a sha1 of the message's kind,
timestamp and parts, which survive the session file round trip and the run metadata pydantic-ai
fills in after the response hook. A compaction re-anchors the coverage or resets it. The notes'
format lives in notes.py, the tail kept after them in notes_tail.py, what is kept beside them (the
coverage, the last failure) in notes_state.py."""

from __future__ import annotations

import asyncio
import contextlib
import functools
import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from pydantic_ai.direct import model_request
from pydantic_ai.exceptions import UnexpectedModelBehavior
from pydantic_ai.messages import (
    ModelMessage,
    ModelRequest,
    ModelResponse,
    TextPart,
    ToolCallPart,
    ToolReturnPart,
    UserPromptPart,
)
from pydantic_ai.models import Model, ModelRequestParameters
from pydantic_ai.usage import RequestUsage

from ..plumbing import rounds, tokens
from ..plumbing.events import Event, Stopwatch, one_line
from ..plumbing.markers import write_private
from ..plumbing.output_limit import within_output_limit
from ..plumbing.overflow import as_overflow
from ..plumbing.settings import CompactionSettings as Settings
from ..testing import mark_request
from . import in_run
from .cuts import join
from .notes import NOTES_MARK, describe, instruction, is_empty, normalize_notes, separate_instruction
from .notes_state import NotesState, find, fingerprint, read_notes, read_state, write_state
from .notes_tail import escalated_tail, keep_index
from .result import CompactionError, CompactionResult
from .summarizer import transcript_as_data
from .text_only import offers_output_tool, sendable, unable_to_act

MAX_BACKOFF_S = 600.0
REFUSED = f"{NOTES_MARK}: tool calls are refused for this request. Reply with the notes as plain text only."


# -- the service -------------------------------------------------------------------------------------------
@dataclass
class _Job:
    """Everything an extraction needs, captured when it starts (the run moves on meanwhile)."""

    prefix: list[ModelMessage]  # the view just sent (+ the text-only response)
    new: list[ModelMessage]  # history messages not yet covered (for the separate model)
    params: ModelRequestParameters | None
    settings: dict[str, Any] | None
    covered: tuple[int, str]
    hint: str
    budget: int
    max_chars: int  # of transcript for the separate model: about half the window
    generation: int
    emit: Callable[[Event], None]
    # The request's max_tokens (the manager's `summary_output_cap`), not the agent's: 200 cut the notes off.
    output_cap: Callable[[Sequence[ModelMessage]], int] | None = None
    # Raises `NotesNotSent` for a request that would not fit the window (`check_notes_fits`), before it is sent.
    check: Callable[[Sequence[ModelMessage]], None] | None = None
    # Told (model, cap) when the provider refused the max_tokens as above what the model writes (output_limit.py).
    learned: Callable[[Model, int], None] | None = None
    # Told a "prompt too long" of the run's own model: the server's window, learned as from a refused
    # summary request (the manager's `learn_from_summary`). It was a failure that taught nothing.
    learn_window: Callable[[BaseException], object] | None = None
    # The run whose model response started it: its requests are held to that run's limits and added to its usage.
    run: in_run.Run | None = None
    path: str = "shared"  # which request wrote the notes: "separate" (as text, no tools) once one was sent


class SessionMemory:
    """Notes for one session; the ContextManager calls `after_response`, `try_compact`, `after_compaction`."""

    def __init__(self, notes_path: Path | None = None, settings: Settings | None = None, *, model: Model | None = None,
                 notes_model: Model | None = None, clock: Callable[[], datetime] | None = None,
                 event_sink: Callable[[Event], None] | None = None) -> None:
        # No path: the notes live in memory only (the library's default; nothing touches the disk).
        self.path = notes_path
        self.sidecar = notes_path.with_suffix(".json") if notes_path is not None else None
        self.settings = settings or Settings()
        self.model, self.notes_model = model, notes_model
        self.clock = clock or (lambda: datetime.now(UTC))
        self.event_sink = event_sink
        self.usage: list[RequestUsage] = []
        self.updates = 0
        self.generation = 0
        self.wait_s = self.settings.memory_wait_s
        self._retry_at: datetime | None = None
        self.task: asyncio.Task[None] | None = None  # the notes update in flight, or the last one
        self._plan: tuple[int, int] | None = None  # (len(messages), covered index) of a pending SM result
        self.notes = read_notes(notes_path) if notes_path is not None else None
        saved = read_state(self.sidecar)  # as the last run left it (notes_state.py)
        self.coverage: tuple[int, str] | None = saved.coverage
        self.updated = saved.updated
        # Updates failed in a row, and why the last did (`failure`), kept with the session until one succeeds.
        self.failures, self.error = saved.failures, saved.error
        self.earlier = bool(self.error)  # …in an earlier run: this one has not tried yet

    @property
    def in_flight(self) -> bool:  # pending on a loop that runs (a `run_sync`'s stops when the call returns)
        return self.task is not None and not self.task.done() and self.task.get_loop().is_running()

    def _here(self) -> asyncio.Task[None] | None:
        """The extraction pending on the running loop. One on another (a `run_sync`'s, a thread's) is dropped, not
        awaited (it never ended): cancelled there, it takes no result, and the next update covers its part."""
        if (task := self.task) is None or task.done():
            return None
        with contextlib.suppress(RuntimeError):  # outside a loop: none is this one's
            if task.get_loop() is asyncio.get_running_loop():
                return task
        self.task, loop = None, task.get_loop()
        task._log_destroy_pending = False  # type: ignore[attr-defined]  # its loop may never run again
        if not loop.is_closed():
            loop.call_soon_threadsafe(task.cancel)
        return None

    def locate(self, messages: Sequence[ModelMessage]) -> int | None:
        """Index of the last covered message in `messages`, or None (nothing covered / not present)."""
        return find(messages, *self.coverage) if self.coverage else None

    def _emit(self, sink: Callable[[Event], None], event: Event) -> None:
        event.time = event.time or self.clock().isoformat()
        (self.event_sink or sink)(event)

    # -- background extraction -------------------------------------------------------------------------
    def after_response(self, cm: Any, messages: list[ModelMessage]) -> None:
        """Start one extraction if enough happened since the last; never raises, never waits."""
        try:
            self._maybe_start(cm, messages)
        except Exception as e:  # noqa: BLE001 - the notes must never break a turn
            self._emit(cm.emit, Event("memory", "failed", detail={"error": one_line(e)}))

    def _maybe_start(self, cm: Any, messages: list[ModelMessage]) -> None:
        if self._here() or not messages or (self._retry_at and self.clock() < self._retry_at):
            return
        c = self.locate(messages)
        start = 0 if c is None else c + 1
        since = messages[start:]
        calls = sum(len(rounds.call_ids(m)) for m in since)
        last = messages[-1]
        text_only = isinstance(last, ModelResponse) and not rounds.call_ids(last)
        # Enough new material AND a natural point: several tool calls done, or the model stopped
        # to answer. Updating on every few calls alone would rewrite the notes (output tokens,
        # full price) more often than the context fills.
        if tokens.estimate(since) < cm.limits.memory_update_tokens:
            return
        # Notes only pay off when a compaction is coming: a session that stays small never
        # spends output tokens on them. It comes at the threshold, or sooner where the schedule
        # prices it sooner (notes that waited for the threshold were never written then).
        schedule = getattr(cm, "schedule", None)
        coming = cm.limits.threshold if schedule is None else min(cm.limits.threshold,
                                                                 schedule.expected_compaction(cm)[0])
        if cm.last_tokens < coming * self.settings.memory_start_fraction:
            return
        if calls < self.settings.memory_update_tool_calls and not text_only:
            return
        end = len(messages) if text_only else len(messages) - 1  # an unanswered call cannot be in a prefix
        if end <= start:
            return
        view = list(cm.view) or list(messages[:-1])
        prefix = join(view, [last]) if text_only else view
        budget = max(400, min(12_000, cm.limits.threshold // 6))
        job = _Job(prefix, list(messages[start:end]), cm.last_params, cm.last_settings,
                   (end - 1, fingerprint(messages[end - 1])), describe(messages[c]) if c is not None else "",
                   budget, cm.limits.window * 2, self.generation, cm.emit, getattr(cm, "summary_output_cap", None),
                   getattr(cm, "check_notes_fits", None), getattr(cm, "learn_output_limit", None),
                   self._window_teacher(cm), in_run.current())
        self.task = asyncio.get_running_loop().create_task(self._extract(job), name="session-notes")

    def _window_teacher(self, cm: Any) -> Callable[[BaseException], object] | None:
        """What learns the server's window from a notes request it refused as too long: the manager's,
        where the request goes to the run's own model (the shared path); a notes model of its own
        has its own window, which says nothing of the run's."""
        learn = getattr(cm, "learn_from_summary", None)
        if learn is None or self.notes_model is not None or self.model is not getattr(cm, "run_model", None):
            return None
        return functools.partial(learn, request="notes")

    async def _extract(self, job: _Job) -> None:
        watch, earlier, me = Stopwatch(), len(self.usage), asyncio.current_task()
        try:
            reply = await (self._separate(job) if self.notes_model is not None else self._shared(job))
            if me is not self.task:  # dropped meanwhile (`_here`): no result of its own
                return
            notes = normalize_notes(reply, self.notes)
            if self.path is not None:
                write_private(self.path, notes, "notes")
        except asyncio.CancelledError:
            raise
        except Exception as e:  # noqa: BLE001 - logged, backed off, retried on a later response
            if me is not self.task:  # dropped (`_here`), its failure is no one's (its loop may be gone)
                return
            if job.learn_window is not None and (overflow := as_overflow(e)) is not None:
                job.learn_window(overflow)  # said, kept; the next update is sized to it (`check_notes_fits`)
            self.failures += 1
            wait = min(MAX_BACKOFF_S, self.settings.memory_retry_s * 2 ** (self.failures - 1))
            self._retry_at, self.error, self.earlier = self.clock() + timedelta(seconds=wait), one_line(e), False
            self._save()  # why, for /notes in a later run too
            self._emit(job.emit, Event("memory", "failed", duration_ms=watch.ms(), detail={
                "error": one_line(e), "failures": self.failures, "retry_in_s": wait}))
            return
        self.notes, self.failures, self._retry_at, self.error, self.earlier = notes, 0, None, "", False
        self.updates += 1
        self.updated = self.clock().isoformat()
        if job.generation == self.generation:  # else a compaction re-anchored coverage meanwhile
            self.coverage = job.covered
        self._save()  # the failure an earlier update left cleared, whatever the coverage
        self._emit(job.emit, Event("memory", "update", tokens.estimate(job.new), tokens.text_tokens(notes),
                                   duration_ms=watch.ms(), detail={
                                       "covered": job.covered[0], "new_messages": len(job.new),
                                       "path": job.path,
                                       "usage": in_run.reported(self.usage[earlier:])}))  # also where no run counts them

    async def _shared(self, job: _Job) -> str:
        """Same prefix as the main request (cache hit), the instruction last, unable to act."""
        if self.model is None:
            raise UnexpectedModelBehavior("no model for session notes")
        params, shared = unable_to_act(job.params, job.settings, self.model)
        settings: Any = shared  # pydantic-ai's ModelSettings, a TypedDict
        history = join(job.prefix, [ModelRequest(parts=[UserPromptPart(instruction(self.notes, job.hint,
                                                                                   job.budget))],
                                                 metadata=mark_request("notes"))])
        for _attempt in range(2):
            if job.check is not None:
                job.check(history)  # NotesNotSent: a failed extraction, reported and retried later
            if job.output_cap is not None:
                settings = {**shared, "max_tokens": job.output_cap(history)}
            resp = await within_output_limit(functools.partial(self._send, history, params, job.run), settings,
                                             None if job.learned is None else functools.partial(job.learned, self.model))
            self.usage.append(resp.usage)
            calls = [p for p in resp.parts if isinstance(p, ToolCallPart)]
            if not calls:
                return "".join(p.content for p in resp.parts if isinstance(p, TextPart))
            # Any call, not only the output tool's, where the output tool is offered (as the summary's
            # loop does): asked again, the request would offer it again and the model call it again.
            if offers_output_tool(params):
                return await self._separate(job, self.model)
            refusals = [ToolReturnPart(p.tool_name, "Refused: tools are disabled while writing notes.",
                                       tool_call_id=p.tool_call_id) for p in calls]
            history = [*history, resp, ModelRequest(parts=[*refusals, UserPromptPart(REFUSED)],
                                                    metadata=mark_request("notes"))]
        raise UnexpectedModelBehavior("the notes request kept calling tools")

    async def _send(self, history: Sequence[ModelMessage], params: ModelRequestParameters, run: in_run.Run | None,
                    settings: dict[str, Any] | None, model: Model | None = None) -> ModelResponse:
        """One notes request, held to the `run`'s limits first and added to its usage after (in_run.py)."""
        in_run.admit(run, "notes")  # UsageLimitExceeded: not sent, a failed update
        model = model or self.model
        assert model is not None  # `_shared` and `_separate` send to a model they have
        resp = await model_request(model, sendable(model, history, params, settings),
                                   model_settings=settings,  # type: ignore[arg-type]
                                   model_request_parameters=params)
        in_run.count(run, in_run.priced(resp), "notes")  # paid for; past the per-request limit: a failed update
        return resp

    async def _separate(self, job: _Job, model: Model | None = None) -> str:
        """The previous notes and the new messages, as text, with no tools: to a cheaper notes model,
        or to the run's own `model` where its reply to the shared request called the agent's output
        tool (`offers_output_tool`), held to the run's window and output cap as that request was.
        Where pydantic-ai knows a notes model's window (its profile's `context_window`), the request
        fits it (`separate_instruction`); one that cannot is not sent (`NotesNotSent`, a failed extraction)."""
        model = model or self.notes_model
        assert model is not None
        own = model is not self.notes_model
        text = separate_instruction(self.notes, job.hint, job.budget, transcript_as_data(job.new), job.max_chars,
                                    None if own else getattr(model, "context_window", None))
        req, job.path = [ModelRequest(parts=[UserPromptPart(text)], metadata=mark_request("notes"))], "separate"
        if own and job.check is not None:
            job.check(req)
        capped = {"max_tokens": job.output_cap(req)} if own and job.output_cap is not None else None
        learned = functools.partial(job.learned, model) if own and job.learned is not None else None
        resp = await within_output_limit(functools.partial(self._send, req, ModelRequestParameters(), job.run,
                                                           model=model), capped, learned)
        self.usage.append(resp.usage)
        return "".join(p.content for p in resp.parts if isinstance(p, TextPart))

    def _set_coverage(self, coverage: tuple[int, str] | None) -> None:
        self.coverage = coverage
        self._save()

    def _save(self) -> None:
        write_state(self.sidecar, NotesState(self.coverage, self.updated, self.error, self.failures))

    # -- compaction ---------------------------------------------------------------------------------------
    async def try_compact(self, cm: Any, messages: list[ModelMessage], *, trigger: str, tokens_before: int,
                          archive: Callable[[], Path | None], vet: Callable[[CompactionResult], None] | None = None
                          ) -> CompactionResult | None:
        """The notes + a verbatim tail, with no model call; None when the notes cannot serve.
        `vet`: the caller's check of a compaction made, before its archive is written (compactor.py)."""
        self._plan = None
        waited = Stopwatch()
        if (task := self._here()) is not None:
            await asyncio.wait({task}, timeout=self.wait_s)
        wait_ms = waited.ms()
        watch = Stopwatch()

        def skip(reason: str) -> CompactionResult | None:
            self._emit(cm.emit, Event("memory", "skip", tokens_before, tokens_before, trigger=trigger,
                                      duration_ms=watch.ms(), detail={"reason": reason, "waited_ms": wait_ms}))
            return None

        if self.notes is None:
            return skip("no notes yet")
        if is_empty(self.notes):
            return skip("the notes are an empty template")
        c = self.locate(messages)
        if c is None:
            return skip("stale: the notes cover no message of this history")
        keep = keep_index(messages, c, escalated_tail(cm.limits, getattr(cm.compactor, "escalation", 0)))
        if keep == 0:
            return skip("the notes cover nothing that can be dropped")
        if tokens.text_tokens(self.notes) + cm.measure(messages[keep:]) > cm.limits.threshold:
            return skip("over threshold: notes and kept tail do not fit")

        def fits(made: CompactionResult) -> None:  # checked before the archive is written: none for a skip
            if cm.measure(made.messages) > cm.limits.threshold:
                raise _OverThreshold
            if vet is not None:
                vet(made)
        try:
            result: CompactionResult = cm.compactor.from_notes(messages, self.notes, keep, archive=archive,
                                                               trigger=trigger, tokens_before=tokens_before,
                                                               overhead=cm.overhead, vet=fits)
        except _OverThreshold:
            return skip("over threshold after restoring files")
        except CompactionError as e:
            # The compactor's refusal or the caller's (`vet`: no smaller with the system prompts put
            # back) alike: the notes cannot serve, a summary, shorter than the notes, still may.
            return skip(f"compaction refused: {e}")
        result.event.detail.update(waited_ms=wait_ms, covered=c, notes_updated=self.updated)
        self._plan = (len(messages), c)
        return result

    def after_compaction(self, result: CompactionResult) -> None:
        """Re-anchor coverage in the new history, or reset it when the notes miss part of what it replaced."""
        self.generation += 1
        plan, self._plan = self._plan, None
        if self.coverage is None:
            return
        found = find(result.messages, *self.coverage)
        if found is None and result.strategy == "session_memory" and plan is not None:
            # The tail is kept at the end unchanged (only its first request may be merged), so count back.
            at = len(result.messages) - (plan[0] - plan[1])
            found = at if at >= 0 else None
        self._set_coverage((found, fingerprint(result.messages[found])) if found is not None else None)

    async def drain(self, timeout: float | None) -> None:
        """Let an extraction in flight finish (bounded) so what it cost is not thrown away, then close."""
        if (task := self._here()) is not None:
            await asyncio.wait({task}, timeout=timeout)
        self.close()

    def close(self) -> None:
        """Cancel an extraction in flight: a process about to exit must not leave a task behind."""
        if (task := self._here()) is not None:
            task.cancel()

    def status(self) -> str:
        n = self.updates
        state = "extraction running" if self.in_flight else f"{n} update{'' if n == 1 else 's'} this run"
        cov = f"covers through message {self.coverage[0]}" if self.coverage else "covers no message yet"
        return f"{self.path or 'in memory'} · {cov} · {state}" + (f" · updated {self.updated}" if self.updated else "")

    def failure(self) -> str:
        """Why the last update failed and when it is tried again (with a later response, after the back-off)."""
        left = math.ceil((self._retry_at - self.clock()).total_seconds()) if self.error and self._retry_at else 0
        when = f"with a model response {left:,} s from now or later" if left > 0 else "with the next model response"
        times = f" ({self.failures} in a row)" if self.failures > 1 else ""
        run = ", in an earlier run," if self.earlier else ""
        return f"the last update{run} failed{times} ({self.error}); tried again {when}" if self.error else ""


class _OverThreshold(Exception):
    """A compaction from the notes would leave the context over the threshold (restored files)."""
