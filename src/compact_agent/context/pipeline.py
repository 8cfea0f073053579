"""ContextManager: the pydantic-ai capability that runs the pipeline before every model request.

Before each attempt at a model request (`prepare_model_request`, so also inside a long tool loop):
  1. persist what the run added since the last request (the session file is the truth);
  2. shape the view: L1 budget → L2 snip → L3 microcompact → L4 collapse (view only: shaping.py);
  3. measure the view (estimate calibrated by the provider's reported usage);
  4. when the schedule says so (schedule.py: at the cheapest point in the model's prices, at the
     threshold when that pays, at the hard limit whatever it costs; not while collapse holds, not
     with the breaker open): L5 — session-memory compaction if notes are on and can serve, else a
     full summary, or where the schedule prices it cheaper a record of the steps written without a
     model (compacting.py) — which rewrites the persisted history;
  5. a request still over the window is shrunk (fit.py), never sent as it is; send the view.
When the provider still says "prompt too long", `on_model_request_error` compacts and retries the
same request once (reactive compaction; every refused request of every run gets its own retry) and
corrects the window from what the provider said.

The class only orders the layers and passes tokens on; each layer lives in its own module, and a
compaction as it runs one (the hook, notes or summary, the thrash guard) in compacting.py.

`ContextManager(window=...)` alone is a complete set-up: every layer on, the summary (and the notes,
when enabled) written by the run's own model (sharing its cached prefix), the history and its archives kept in
an `InMemoryStore`, nothing written to disk. State is per conversation: the instance serves the
first conversation it sees, and each other `conversation_id` gets its own copy (up to
`max_conversations`, the first among them; of the others the least recently used idle one is dropped) —
unless you gave it a store of your own (or the agent wired in layers, notes or a compactor:
wiring.py), which belong to one conversation: then a second one is refused.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from collections.abc import Set as AbstractSet
from contextlib import nullcontext
from typing import Any, cast

from pydantic_ai.capabilities.abstract import WrapRunHandler
from pydantic_ai.exceptions import UserError
from pydantic_ai.messages import ModelMessage, ModelResponse
from pydantic_ai.models import Model, ModelRequestContext
from pydantic_ai.run import AgentRunResult
from pydantic_ai.tools import RunContext
from pydantic_ai.usage import RunUsage, UsageLimits

from . import handlers, lifecycle, request_limit, shaping, unclaimed
from .arguments import check_compact_now, check_drain
from .compacting import CompactingState
from .compaction import in_run
from .compaction.cuts import join
from .compaction.result import CompactionResult
from .compaction.summary_prompt import SummaryWording
from .compaction.text_only import prepared
from .decisions.economics import Prices
from .decisions.fit import shrink_to_fit
from .decisions.thinking_out import asks_reasoning_back
from .full_window import document_over_window, not_brought_under
from .plumbing import compat, markers, tokens
from .plumbing.cache import cache_expired
from .plumbing.events import Event
from .plumbing.identity_memo import forget_changed
from .plumbing.overflow import answer_room, as_overflow, figures, refusal_text
from .plumbing.reply_fields import text_fields
from .plumbing.rounds import distinct_call_ids
from .plumbing.settings import CompactionSettings as Settings
from .plumbing.settings import asked_output, sendable
from .plumbing.silent_cut import a_server
from .plumbing.stores import HistoryStore
from .refit import cut_boundary, refit_newest
from .wiring import BeforeCompact, Internals, Layer, SummarizerFactory, TokenCounter

__all__ = [
    "BeforeCompact", "ContextManager", "HistoryStore", "Internals", "Layer", "SummarizerFactory", "TokenCounter",
    "WindowTooSmallError",
]


class WindowTooSmallError(UserError):
    """A request cannot be brought under the window (its fixed part alone may exceed it); it is
    not sent. Raised out of the run, as a provider's refusal would be, but before any request."""



class ContextManager(CompactingState):
    """Keeps every request inside the window. Add it to any pydantic-ai Agent's capabilities:

        Agent(model, capabilities=[ContextManager(window=16_000)])

    Every argument but `window` is optional and keyword-only. Layers 1-4 shape only what is sent; a
    compaction rewrites the run's history (what `all_messages()` returns), after archiving it in
    `store`.

    - `window`: the model's context window in tokens; None: the model's own, where pydantic-ai
      knows it (read at the first request).
    - `max_output`: the most the model writes in one response (reserved for the summary).
    - `settings`: every threshold of every layer (`CompactionSettings`).
    - `summary_model`: the model that writes summaries; None: the run's own, sharing its cached prefix.
    - `token_counter`: a plain function (not async) counting a message's tokens as your provider
      would; None: characters/4, calibrated by the reported usage.
    - `store`: where the history and its archives go, with plain (not async) methods; None: an
      `InMemoryStore` per conversation.
    - `compactable_tools`: the tools whose old results L3 may clear (a list or set of names); None:
      every tool.
    - `event_handler`: a plain function (not async), called with every layer action and compaction
      (typed events); an exception it raises is logged and counted in `handler_errors`, never
      raised into the run.
    - `notes_in_background`: let a notes request outlive its run (then `await drain()` before exiting).
    - `max_conversations`: conversations kept at once (the least recently used idle one dropped;
      one with a run or notes in progress is kept, past the limit if need be).
    - `prices`: the model's prices, which decide when compacting pays (`Prices`).
    - `before_compact`: awaited before every compaction with (trigger, instructions); returns the
      instructions to use. Raise `CompactionBlocked(reason)` in it to block that compaction; any
      other exception is reported as a `hook` / `failed` event and the compaction goes on.
    - `summary_wording`: the summary request's words for your kind of agent (`SummaryWording`: the
      line forbidding tools, the detail to keep, sections 2, 3 and 8, what is restored after it);
      None: the library's, for any agent.
    """

    last_view_media = 0  # of the latest request's estimate, the media at a flat size (`tokens.media_tokens`)

    def __init__(self, window: int | None = None, *, max_output: int = 8_192, settings: Settings | None = None,
                 summary_model: Model | str | None = None, token_counter: TokenCounter | None = None,
                 store: HistoryStore | None = None,
                 compactable_tools: Sequence[str] | AbstractSet[str] | None = None,
                 event_handler: Callable[[Event], object] | None = None, notes_in_background: bool = False,
                 max_conversations: int = 64, prices: Prices | None = None,
                 before_compact: BeforeCompact | None = None,
                 summary_wording: SummaryWording | None = None) -> None:
        self._setup(Internals(), window=window, max_output=max_output, settings=settings,
                    summary_model=summary_model, token_counter=token_counter, store=store,
                    compactable_tools=compactable_tools, event_handler=event_handler,
                    notes_in_background=notes_in_background, max_conversations=max_conversations, prices=prices,
                    before_compact=before_compact, summary_wording=summary_wording)

    # -- runs and conversations (lifecycle.py) -----------------------------------------------
    async def for_run(self, ctx: RunContext[Any]) -> ContextManager:
        """The state for this run's conversation: this instance for the first conversation, a
        fresh copy for each other one (their frozen decisions, notes and history must not mix)."""
        return await lifecycle.for_run(self, ctx)

    def conversation(self, conversation_id: str) -> ContextManager | None:
        """The state kept for `conversation_id` (its store, compactions, savings), to read; None when
        none is kept (no run of it here yet, or dropped past `max_conversations`)."""
        return lifecycle.conversation(self, conversation_id)

    async def wrap_run(self, ctx: RunContext[Any], *, handler: WrapRunHandler) -> AgentRunResult[Any]:
        return await unclaimed.wrap_run(self, ctx, handler=handler)  # a first run that sent nothing lets go

    async def on_run_error(self, ctx: RunContext[Any], *, error: BaseException) -> AgentRunResult[Any]:
        raise lifecycle.run_error(ctx, error)  # a limit a summary counted toward says so

    async def after_run(self, ctx: RunContext[Any], *, result: AgentRunResult[Any]) -> AgentRunResult[Any]:
        """Persist what the run added after its last model request (the final response)."""
        return await lifecycle.after_run(self, ctx, result=result)

    async def drain(self, timeout: float | None = None) -> None:
        """Wait for background notes in flight (all conversations), then cancel what is left.
        Needed only with `notes_in_background=True`, before the event loop ends."""
        check_drain(timeout)
        await lifecycle.drain(self, timeout)

    async def compact_now(self, messages: Sequence[ModelMessage], *, instructions: str = "",
                          model: Model | str | None = None, confirm: handlers.Confirm | None = None,
                          usage: RunUsage | None = None, usage_limits: UsageLimits | None = None
                          ) -> list[ModelMessage]:
        """Compact `messages` (this conversation's history) now, outside a run; returns the new history.

        The summary comes from `model`, else `summary_model`, else the model of the latest run.
        `confirm`, if given, is awaited with the compaction computed (the new history and its
        summary; the archive is written) before anything is rewritten: returning False keeps the
        history as it is and raises `CompactionBlocked`, as a blocking `before_compact` does.
        `usage`, as `agent.run(usage=...)` takes it: what the summary requests use (requests,
        tokens, cost) is added to it; `usage_limits` hold for them (pydantic-ai's
        `UsageLimitExceeded`, nothing rewritten), counted from `usage`, and their
        `per_request_input_tokens_limit` below the window sizes the compaction as in a run.
        Messages stamped with a conversation (what a run returns) are compacted in that
        conversation's state, whichever one this is. Raises `CompactionError` when it cannot
        compact, and for a history of two conversations; the model's own error when the summary
        request fails; `TypeError` or `ValueError` for an argument of the wrong kind (a run's
        result instead of its messages). A compaction that does not go ahead changes nothing: the
        view its summary request sent is committed (decisions frozen, events emitted) only with it.
        """
        check_compact_now(messages, instructions, model, confirm, usage, usage_limits)
        return await lifecycle.compact_now(self, messages, instructions, model, confirm, usage, usage_limits)

    def shape(self, messages: list[ModelMessage]) -> tuple[list[ModelMessage], bool]:
        """Run layers 1–4 for a request (their decisions frozen, savings counted, events emitted:
        shaping.py); returns the view and whether collapse holds auto-compact off."""
        shaped = shaping.shape(self, messages)
        return shaped.messages, shaped.suppressed

    async def compact(self, messages: list[ModelMessage], *, trigger: str, instructions: str = "",
                      summary_input: list[ModelMessage] | None = None, keep_from: int | None = None,
                      view: list[ModelMessage] | None = None, confirm: handlers.Confirm | None = None,
                      tokens_before: int | None = None, going_ahead: Callable[[], None] | None = None
                      ) -> CompactionResult:
        """A compaction (compacting.py), its start told first to the run's own event stream when
        one is in progress (plumbing/events.py): the size it starts from is measured as it is there."""
        if self.run_stream.running:
            tokens_before = tokens_before or self.measure(
                view if view is not None else summary_input if summary_input is not None else messages)
            await self.run_stream.started(trigger, tokens_before, self._conversation or None)
        return await super().compact(messages, trigger=trigger, instructions=instructions,
                                     summary_input=summary_input, keep_from=keep_from, view=view, confirm=confirm,
                                     tokens_before=tokens_before, going_ahead=going_ahead)

    # -- pydantic-ai hooks ---------------------------------------------------------------------
    async def before_model_request(self, ctx: RunContext[Any], request_context: ModelRequestContext
                                   ) -> ModelRequestContext:
        """Before pydantic-ai 2.64 there is no per-attempt hook: the view is prepared here (compat.py)."""
        if compat.HAS_PREPARE_HOOK:
            return request_context
        return await self.prepare_model_request(ctx, request_context)

    async def prepare_model_request(self, ctx: RunContext[Any], request_context: ModelRequestContext
                                    ) -> ModelRequestContext:
        model = cast(Model, ctx.model)  # a run's model is a pydantic-ai Model (what model_request takes)
        lifecycle.window_from(self, model)
        self._run_ids = (ctx.run_id, ctx.conversation_id)
        distinct_call_ids(ctx.messages)  # a reused call id named apart before it is saved (rounds.py)
        markers.mark_typed(ctx.messages, ctx.prompt)  # the user's words, also where they begin as ours do
        self.persist(ctx.messages)
        params = request_context.model_request_parameters
        self.last_params, self.last_settings = params, request_context.model_settings
        self.run_model, self._tracer = model, ctx.tracer
        self.reasoning_asked_back = asks_reasoning_back(  # DeepSeek's thinking mode (thinking_out.py)
            model, request_context.model_settings, params)
        if (cap := self.output_caps.get(f"{model.system}:{model.model_name}")) is not None and cap < self.max_output:
            self.max_output = cap  # learned from a refusal, also before a restart (measuring.py)
            self.adapt_output_reserve(0)  # and the room kept for its answers is no more than it writes
        if self._own_memory and self.memory is not None:
            self.memory.model = model  # notes share the run's model and cached prefix
        if self._all_tools:
            lifecycle.compact_tools(self, {t.name for t in params.function_tools})
        lifecycle.agent_tools(self, params.function_tools)
        instructions = "\n".join(str(getattr(p, "content", "")) for p in (params.instruction_parts or []))
        self.overhead = tokens.request_overhead(instructions, params.function_tools)
        self.answer_asked = asked_output(request_context.model_settings)
        if self.answer_asked > self.limits.output_reserve:
            self.adapt_output_reserve(0)  # the room for the answer is at least what the request asks
        self.run_stream.ctx = ctx  # a compaction's start goes to the run's stream with it (plumbing/events.py)
        # A run's per_request_input_tokens_limit below the window is the window here (request_limit.py).
        with request_limit.within(self, ctx.usage_limits), in_run.counted_in(ctx.usage, ctx.usage_limits):
            view, tokens_now = ctx.messages, 0  # a summary's tokens count in the run's (in_run.py)
            if (said := document_over_window(self, ctx.messages)) is None:  # no compaction can help (full_window.py)
                view, tokens_now, _ = await self.prepare_view(ctx.messages)
                said = not_brought_under(self, view, tokens_now)  # the last resort could not either
            if said is not None:
                await self.run_stream.send(ctx)
                raise request_limit.over(self, said) or WindowTooSmallError(said)
        request_context.messages = list(view)
        await self.run_stream.send(ctx)  # what the layers and a compaction did for it, before its response
        self._asked_at = self.clock()  # the round trip a look-again would cost is timed (reuse.py)
        return request_context

    async def prepare_view(self, messages: list[ModelMessage]) -> tuple[list[ModelMessage], int, bool]:
        """Shape, measure and, over the threshold, compact: returns (view, tokens, compacted).

        `messages` is the persisted history; an automatic compaction rewrites it in place. The
        analyzer's replay calls this very method for every recorded request, so a replayed request
        goes through exactly the code path of a live one.
        """
        self.compactor.drop_plan()  # what a compaction would keep is asked afresh each request (keep.py)
        forget_changed(messages)  # a message edited in place since is measured again (identity_memo.py)
        distinct_call_ids(messages)  # as a live request does (the analyzer's replay comes in here)
        if self.requests == 0:  # a conversation this manager did not see arrive (resumed, or handed over)
            self.learn_conversation(messages)
        view, suppressed = self.shape(list(messages))
        tokens_now = self.measure(view)
        self.schedule.growth.observe(self.measure(messages) - self.calibration.tokens(self.overhead))
        compacted = False
        reason = self.schedule.reason(self, messages, tokens_now, suppressed,
                                      cold=cache_expired(messages, self.clock(), self.cache_ttl_s))
        if reason:
            self._reason = reason
            if await self._auto(messages, view, "auto"):
                compacted = True
                view, _ = self.shape(list(messages))
                tokens_now = self.measure(view)
        fits = self.fit_size(view)  # the last resort shrinks by it, and a request is refused by it
        limit = sendable(self.limits.window, self.answer_asked)
        if self._fit_hard_limit:  # a blocked compaction over the hard limit: shrink this view instead
            limit, self._fit_hard_limit = min(limit, self.schedule.hard_limit(self)), False
        if max(tokens_now, fits) > limit:
            view, tokens_now = shrink_to_fit(self, view, max(tokens_now, fits), limit)
        view = join(view)
        self._save_layer_state()
        self.view = view
        self._sent = (len(messages), messages[-1] if messages else None)
        self.last_tokens = tokens_now
        self.last_view_tokens_est = self.estimate(view) + self.overhead_estimate  # as the provider counts it
        # What the calibration learns the provider's report against (`Calibration.observe`): the whole
        # estimate, the thinking of it a provider may not count, of that the earlier turns', and the
        # media at a flat size (a provider may count an image at a twentieth of it: no cut, silent_cut.py).
        every, earlier = self.thinking_in(view)  # once: what the estimate above left out is of it
        left = self.calibration.uncounted(earlier, every - earlier)
        self.last_view_observed = (self.last_view_tokens_est + left, every, earlier)
        self.last_view_media = tokens.media_tokens(view)
        self.requests += 1
        self.compactor.drop_plan()  # the answer, the tools and the files may change what it would keep
        return view, tokens_now, compacted

    async def after_model_request(self, ctx: RunContext[Any], *, request_context: ModelRequestContext,
                                  response: ModelResponse) -> ModelResponse:
        response = text_fields(response)  # a server's number for its model's name is not saved as one
        reported = response.usage.input_tokens
        if reported:  # the newest report is of the history since the latest compaction (an answer without one is not)
            self._answered_since_compaction = True
        if response.usage.cache_read_tokens:  # the provider reports its cache: summaries' reads count
            self.schedule.caches_reported = True
        if self.schedule.reuse is not None:
            self.schedule.reuse.observe([*ctx.messages, response])
            if self._asked_at is not None:
                self.schedule.reuse.time_round_trip((self.clock() - self._asked_at).total_seconds())
        self._asked_at = None
        if response.usage.output_tokens:
            self.adapt_output_reserve(response.usage.output_tokens)
        cut_before, window_before = self.calibration.cut_to(), self.limits.window
        if reported and not self.calibration.observe(reported, *self.last_view_observed, flat=self.last_view_media,
                                                     cuts=a_server(getattr(ctx, "model", None))):
            cut = self.calibration.cut_to()  # a server that cuts prompts to its window, silently
            self.emit(Event("calibration", "rejected", self.last_view_tokens_est, reported, detail={"reason": (
                "the server cut the prompt to its window" if cut is not None and (cut != cut_before or
                                                                  reported >= 0.995 * cut) else
                "the reported input is implausibly far below the estimate")}))
            if cut is not None:
                self.learn_window(cut, self.calibration.whole(self.last_view_tokens_est), "cut")
            reported = 0
        if (self.limits.window < window_before and self.calibration.cut_to() != cut_before
                and getattr(ctx, "model", None) is not None  # the analyzer's replay sends nothing
                and self._asked_again != (ctx.run_id, ctx.run_step)):  # once: a second cut's answer is kept
            return await self._ask_again(ctx, request_context)
        if reported:
            self.last_tokens = reported + response.usage.output_tokens
        if self.memory is not None:  # the library's own notes count in the run that waits for them (in_run.py),
            counted = not self.notes_in_background  # and are held to its per-request input limit in the background
            with in_run.counted_in(ctx.usage, ctx.usage_limits, counted) if self._own_memory else nullcontext():
                self.memory.after_response(self, list(ctx.messages) + [response])
        self._save_layer_state()  # with this report, which the next run compares its first with
        await self.run_stream.send(ctx)
        return response

    async def _ask_again(self, ctx: RunContext[Any], request_context: ModelRequestContext) -> ModelResponse:
        """The answer to a prompt the server cut is dropped: the model answered without the prompt's
        start (the task, the instructions), and its tool calls would be run. The request is prepared
        again within the window just learned (compacted) and sent once more, and that answer is the
        step's; a request sent again is not sent a third time. Sent here, not by `RetryModelRequest`,
        which a streamed response (the terminal agent's) no longer takes."""
        self._asked_again = (ctx.run_id, ctx.run_step)
        await self.run_stream.send(ctx)  # the window learned, before the request sent again
        retry = await self.prepare_model_request(ctx, request_context)
        response = await self._send_again(retry)
        return await self.after_model_request(ctx, request_context=retry, response=response)

    @staticmethod
    async def _send_again(retry: ModelRequestContext) -> ModelResponse:
        """`retry` sent by the model itself, its messages prepared as the agent prepares a request
        (a changed tool set's part, unprepared, is refused: text_only.prepared)."""
        messages = prepared(retry.model, retry.messages, retry.model_request_parameters,
                            cast("dict[str, Any] | None", retry.model_settings))
        return await retry.model.request(messages, retry.model_settings, retry.model_request_parameters)

    async def on_model_request_error(self, ctx: RunContext[Any], *, request_context: ModelRequestContext,
                                     error: Exception) -> ModelResponse:
        self._asked_at = None  # a failed request times nothing
        overflow = as_overflow(error)  # also a local server's own words for it (plumbing/overflow.py)
        if overflow is None:
            raise error
        request = (ctx.run_id, ctx.run_step)  # this request: its step alone repeats in every later run
        self.run_stream.ctx = ctx
        if self._reactive_request == request:  # compacted for it once and still refused: no loop
            raise overflow
        window = self.limits.window
        text = refusal_text(overflow)
        self.learn_from_overflow(text, answer_room(text, request_context.model_settings))
        # A smaller window learned: the newest prompt cut as the caller cuts input too large for it (refit.py).
        if self.limits.window < window and refit_newest(self.refit_prompt, self.limits.threshold, ctx.messages,
                                                        self.emit):
            self.rewrite_note = cut_boundary(self.limits.window)  # what the store's rewrite of it says
        else:
            self._reactive_request = request
            # Its size as the server named it (the line of a window learned says it): our estimate
            # of the same request, scaled by a calibration that weighs earlier reports too, differed.
            refused, _ = figures(text)  # held to a run's per-request limit, as the request sent again is
            with request_limit.within(self, ctx.usage_limits), in_run.counted_in(ctx.usage, ctx.usage_limits):
                compacted = await self._auto(ctx.messages, self.view, "reactive", refused)
            undercounted = refused is not None and refused > self.last_tokens  # the calibration learned it
            if not compacted and not self._fit_hard_limit and self.limits.window >= window and not undercounted:
                await self.run_stream.send(ctx)  # failed; a blocked one, any in a window just learned smaller,
                raise overflow  # or one the server counted larger than estimated, is retried shrunk to fit (fit.py)
        await self.run_stream.send(ctx)
        if compat.RETRY_MODEL_REQUEST is not None:
            raise compat.RETRY_MODEL_REQUEST()
        # Before pydantic-ai 2.64 this hook cannot ask for the request again: send the compacted one.
        return await self._send_again(await self.prepare_model_request(ctx, request_context))
