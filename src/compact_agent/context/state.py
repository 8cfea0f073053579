"""What one conversation's `ContextManager` holds and measures, below the pipeline that uses it.

`ManagerState` is built once per conversation (`_setup`, with `build_defaults`, defaults.py, filling in
whatever the caller left out), keeps the store in step with the history, follows the window and the output
reserve, and hands events to the observers; how it measures a view (an estimate calibrated by the
provider's reported usage) is `Measuring`'s, measuring.py, and what it saves beside the history (the
layers' frozen decisions, what the schedule learned) is `SavedState`'s, saved_state.py. `pipeline.py` adds
what happens before each request (the layers, the schedule, compaction: run by `compacting.py`) and
`lifecycle.py` the runs and conversations; all build on this and none is imported here.
"""

from __future__ import annotations

import inspect
import itertools
import logging
from collections import OrderedDict
from collections.abc import Callable, Collection, Sequence
from collections.abc import Set as AbstractSet
from datetime import datetime
from typing import TYPE_CHECKING, Any, Self

from pydantic_ai.capabilities import AbstractCapability
from pydantic_ai.messages import ModelMessage, ModelResponse
from pydantic_ai.models import Model

from . import breaker_retry, request_limit
from .arguments import check_history, check_options
from .compaction.compactor import Compactor
from .compaction.memory import SessionMemory
from .compaction.result import CompactionError, CompactionResult
from .compaction.summary import carried_tokens
from .compaction.summary_prompt import SummaryWording
from .contract import StoreSync
from .decisions.economics import Prices
from .decisions.schedule import Schedule
from .defaults import as_model, build_defaults, default_summarizer
from .layers import frozen
from .measuring import Measuring
from .plumbing import tokens
from .plumbing.events import Event, RunStream, one_line, stamp, typed
from .plumbing.identity_memo import IdentityMemo
from .plumbing.markers import is_compaction_message
from .plumbing.overflow import LearnedWindow, ModelWindows, figures
from .plumbing.settings import CompactionSettings as Settings
from .plumbing.settings import Limits
from .plumbing.stores import HistoryStore
from .plumbing.tool_content import ToolContentFence
from .plumbing.tracing import NoTracer
from .saved_state import SavedState
from .wiring import BeforeCompact, Internals, Layer, SummarizerFactory, TokenCounter

if TYPE_CHECKING:  # the type of pydantic-ai's `RunContext.tracer`; never imported at run time (tracing.py)
    from opentelemetry.trace import Tracer

log = logging.getLogger(__name__)

class ManagerState(SavedState, Measuring, ToolContentFence, AbstractCapability[Any]):
    """The state of one conversation's pipeline: its window and limits, store, layers, compactor,
    notes and schedule, what the latest request measured, and the observers of its events."""

    # After construction every one of these is set. A window not given is read from the model at the first
    # request: until then `window` is None, `limits` an 8K window's of no consequence (nothing is sent).
    window: int | None
    limits: Limits
    store: HistoryStore
    settings: Settings
    layers: list[Layer]
    compactor: Compactor
    summarizer: SummarizerFactory
    memory: SessionMemory | None
    run_model: Model | None  # the model of the latest run (writes summary and notes)
    output_caps: dict[str, int]  # what another summary model writes at most, where a refusal said (measuring.py)
    # Set up by build_defaults.
    _owned: list[str]  # what the caller built, which holds one conversation
    _window_unknown: bool
    _window_of_model: bool  # none was given: each conversation's is its model's own
    _windows: ModelWindows  # whose window the limits are, and what the conversation's other models taught
    _all_tools: bool
    _own_memory: bool
    _now_model: Model | None
    _tracer: Tracer | NoTracer  # pydantic-ai's from the first request of a run on
    _conversation: str | None
    _others: OrderedDict[str, Self]
    _manager: Self | None  # the manager that keeps this conversation (lifecycle.state_for); None on itself
    _starting: set[str | None]  # runs given this state (lifecycle.for_run) whose wrap_run has not begun
    _prev_savings: dict[str, int]
    _rebaseline: bool
    _run_ids: tuple[str | None, str | None]
    _running: str | None

    # pydantic-ai's capability base is a dataclass: its `__eq__` compared only the base's fields, so
    # any two managers were equal and none could be hashed. One manager is one pipeline's state.
    def __eq__(self, other: object) -> bool:
        return self is other

    def __hash__(self) -> int:
        return object.__hash__(self)

    def __repr__(self) -> str:
        window, max_output = getattr(self, "window", None), getattr(self, "max_output", None)  # set up or not
        return f"{type(self).__name__}(window={window}, max_output={max_output})"

    @classmethod
    def wired(cls, internals: Internals, window: int | None = None, **options: Any) -> Self:
        """A `ContextManager` with the public `options` and what the terminal agent or the analyzer
        wire in (`Internals`, wiring.py): the one way in for anything that is not a public option."""
        cm = cls.__new__(cls)
        cm._setup(internals, window=window, **options)
        return cm

    def _setup(self, internals: Internals, *, window: int | None, max_output: int = 8_192,
               settings: Settings | None = None, summary_model: Model | str | None = None,
               token_counter: TokenCounter | None = None, store: HistoryStore | None = None,
               compactable_tools: Sequence[str] | AbstractSet[str] | None = None,
               event_handler: Callable[[Event], object] | None = None,
               notes_in_background: bool = False, max_conversations: int = 64, prices: Prices | None = None,
               before_compact: BeforeCompact | None = None,
               summary_wording: SummaryWording | None = None) -> None:
        check_options(window=window, max_output=max_output, settings=settings, summary_model=summary_model,
                      token_counter=token_counter, store=store, compactable_tools=compactable_tools,
                      event_handler=event_handler, notes_in_background=notes_in_background,
                      max_conversations=max_conversations, prices=prices, before_compact=before_compact)
        self.max_output = max_output
        self.settings = settings if settings is not None else Settings()
        self.summary_model, self.summary_wording = summary_model, summary_wording  # checked in build_defaults
        self.token_counter = token_counter
        # A copy: the caller's list, changed later, would change the conversations built after it.
        self.compactable_tools = tuple(compactable_tools) if compactable_tools is not None else None
        self.event_handler = event_handler
        self.notes_in_background = notes_in_background
        self.max_conversations = max_conversations
        self.prices = prices if prices is not None else Prices()
        self.clock = internals.clock
        self.event_sink = internals.event_sink
        self.run_stream = RunStream()  # the events a run's own event stream is sent (plumbing/events.py)
        self.on_compact_start = internals.on_compact_start
        self.provider, self.reasoning_asked_back = internals.provider, False  # the run's model's (pipeline.py)
        self.cache_ttl_s = min(internals.cache_ttl_s, self.prices.ttl_s)  # the provider's cache lifetime
        self.save_state = internals.save_state
        self.before_compact = before_compact
        # Whether `before_compact` has ever answered with instructions: until it does, a compaction
        # may keep a record (which needs no model), and the schedule prices it so (handlers.py).
        self.handler_instructs = False
        self.after_compact = internals.after_compact
        self.keep_system_prompts = internals.keep_system_prompts
        self.refit_prompt = internals.refit_prompt
        self.rewrite_note: dict[str, Any] | None = None  # the store's next rewrite, when not an edited history
        self.window_learned: LearnedWindow | None = None  # the server's limit, below the window given
        self.server = internals.server  # who answers the requests, as the host names it (wiring.py)
        self.folded_calls: tuple[int, set[str]] = (-1, set())  # the request the last resort folded, its steps (fit.py)
        self.thinking_left_out = False  # the view leaves the model's earlier thinking out (thinking_out.thinking_over_limit)
        build_defaults(self, window, store, internals)
        self.summarizer = internals.summarizer or default_summarizer
        self.calibration = tokens.Calibration()
        self._sync = StoreSync(self.emit)  # what the store holds, by identity
        self._counted: IdentityMemo[int] = IdentityMemo()  # the token counter's figure per message
        self._run_ids: tuple[str | None, str | None] = (None, None)  # the live run's (run_id, conversation_id)
        self._running: str | None = None  # its run's run_id (lifecycle.wrap_run), or lifecycle.COMPACTING
        self.answer_asked = 0  # the max_tokens the latest request asked for: the window holds it with the prompt
        self.handler_errors = 0  # exceptions raised by `event_handler` (logged, never raised into the run)
        self.failures = 0
        self.compactions: list[CompactionResult] = []
        self.last_params: Any = None
        self.last_settings: Any = None
        self.last_tokens = 0
        self.last_view_tokens_est = 0
        self.last_view_observed = (0, 0, 0)  # what of it the calibration learns from (pipeline.py)
        self.overhead = 0
        self.requests = 0
        self.layer_savings: dict[str, int] = {}
        self.view_savings: dict[str, int] = {}  # tokens each view layer removed from the latest request
        self._reactive_request: tuple[str | None, int] | None = None  # (run_id, run_step) compacted for
        self._asked_again: tuple[str | None, int] | None = None  # (run_id, run_step) sent again after a cut
        self._asked_at: datetime | None = None  # when the request now out was sent (its round trip is timed)
        self._thrash = 0
        self._last_compaction_request = 0
        self._answered_since_compaction = False
        self.view: list[ModelMessage] = []
        self._sent: tuple[int, ModelMessage | None] = (0, None)  # history length and last message the view covered
        self.schedule = Schedule(self.prices)  # when to compact (schedule.py)
        # What forgetting costs sizes the kept tail and keeps the results in use (schedule.py, reuse.py).
        if self.compactor.tail_for is None:
            self.compactor.tail_for = lambda base: self.schedule.choose_tail(self, base)
        if self.compactor.hot is None:
            self.compactor.hot = lambda call_id: self.schedule.reuse is not None and self.schedule.reuse.hot(call_id)
        if self.compactor.sent_size is None:  # whether a compaction shrinks the request: by what it sends
            self.compactor.sent_size = self.sent_size
        if self.compactor.estimate is None:  # what it keeps, in the units of the calibration's ratio
            self.compactor.estimate = self.estimate
        if self.compactor.returns_to_changed is None:
            self.compactor.returns_to_changed = lambda: (self.schedule.reuse is None
                                                         or self.schedule.reuse.returns_to_changed_files())
        self._reason = ""
        self._fit_hard_limit = False  # a blocked compaction: shrink the next view to the hard limit

    # -- state the runner reads ------------------------------------------------------------
    @property
    def breaker_open(self) -> bool:
        return self.failures >= self.limits.max_consecutive_failures

    def close_breaker(self) -> None:
        """Automatic compaction resumes (a compaction made on request succeeded, or the user said
        so): the failures in a row are forgotten, with any pause's retry, here and in the saved state."""
        breaker_retry.closed(self)  # as an automatic compaction that succeeds closes it (compacting.py)
        self._save_layer_state()

    @property
    def compacted_since_last_request(self) -> bool:
        """True between a compaction and the next answer: the last reported usage is stale. A
        request that got no answer (refused, or cut off) reports nothing, and the newest report
        is still the one of the history before the compaction."""
        return bool(self.compactions) and not self._answered_since_compaction

    def tokens_until_compaction(self) -> int:
        return self.limits.threshold - self.last_tokens

    def set_window(self, window: int) -> None:
        self.limits = Limits.for_window(window, self.max_output, self.settings)
        self.window, self.window_learned = window, None
        if self.compactor:
            self.compactor.limits = self.limits
        self.adapt_output_reserve(0)

    def adapt_output_reserve(self, output_tokens: int) -> None:
        """Let the output reserve (and so the threshold) follow the longest answer seen, never
        below the `max_tokens` the requests ask for (`answer_asked`)."""
        configured = Limits.for_window(self.limits.window, self.max_output, self.settings)
        self.limits = self.schedule.output_limits(self.limits, configured, output_tokens,
                                                  self.settings.adaptive_output_reserve, self.answer_asked)
        if self.compactor is not None:
            self.compactor.limits = self.limits

    def hard_limit(self) -> int:
        return self.schedule.hard_limit(self)

    def sent_size(self, messages: Sequence[ModelMessage], kept: Collection[str] = ()) -> int:
        """The size of a request of `messages` as it would be sent now, the results `kept` whole: what a
        compaction must shrink. Here as saved; `CompactingState` measures it as the view layers shape it."""
        return self.measure(messages)

    def emit(self, event: Event) -> None:
        """Hand `event` to the observers. An observer that raises is logged and counted
        (`handler_errors`), never allowed to break the run: watching must not change what happens."""
        event = typed(event)
        if not event.time:
            event.time = self.clock().isoformat()
        stamp(event, self, self._conversation)  # its conversation, run and agent (one handler may watch many)
        self.run_stream.put(event)  # for the run's stream, sent by its next model-request hook
        if event.action == "failed" and self.event_handler is None and self.event_sink is None:
            # Unwatched, a failure is still seen; not one that would not shrink the context: nothing broke
            said = log.info if event.detail.get("skipped") else log.warning
            said("%s failed: %s", "compaction" if event.layer == "compact" else event.layer,
                 event.detail.get("error", "no reason given"))
        for sink in (self.event_sink, self.event_handler):
            if sink is None:
                continue
            try:
                answer = sink(event)
            except Exception as e:  # noqa: BLE001 - an observer's failure is its own
                self.handler_errors += 1
                log.warning("the event handler raised on a %s/%s event (%s); the run goes on",
                            event.layer, event.action, one_line(e))
                continue
            if inspect.iscoroutine(answer):  # an async handler the constructor could not tell apart
                answer.close()  # never run: closed, so no "never awaited" warning per event
                self.handler_errors += 1
                log.warning("the event handler returned a coroutine for a %s/%s event, which is not awaited: "
                            "it must be a plain function", event.layer, event.action)

    def summary_model_for_now(self) -> Model:
        """The model that writes a summary now (see `summary_model`)."""
        model = self._now_model or as_model(self.summary_model) or self.run_model
        if model is None:
            raise CompactionError("no model to write the summary: pass summary_model=... to ContextManager, "
                                  "or model=... to compact_now()")
        return model

    # -- persistence -------------------------------------------------------------------------
    @property
    def synced(self) -> int:
        """How many messages the store is known to hold."""
        return len(self._sync.held)

    def persist(self, messages: Sequence[ModelMessage]) -> None:
        """Make the store hold `messages` (the run's history is authoritative): append what it lacks,
        or rewrite it when `messages` no longer begins with what it holds (matched by identity).
        In a run, all but the request being made came before it: a store that cannot say whether it
        holds them must be told (`resume`), not appended to twice (contract.py)."""
        if self._run_ids[0] is not None:
            self._sync.check_known(self.store, len(messages) - 1)
        self._sync.sync(self.store, messages, self._replaced_boundary)

    def resume(self, messages: Sequence[ModelMessage] | None = None) -> None:
        """Declare what the store already holds, so the next run appends only what is new.

        Call it on a new `ContextManager` given a store that holds the conversation (after a
        restart), with the history you loaded from it and pass as `message_history`. Without
        `messages`, a store with `load_messages()` is asked (such a store is also resumed onto by
        itself at the first request); with them, it is checked, and given what it lacks (contract.py)."""
        if messages is not None:
            check_history(messages, "resume")
        self.learn_conversation(self._sync.resume(self.store, messages))

    def learn_conversation(self, messages: Sequence[ModelMessage]) -> None:
        """What the schedule would have measured had this manager seen `messages` arrive (a
        conversation resumed, or handed over as `message_history`): its age (each answer was a
        request), what each request added (an answer and the results after it) and what the model
        kept reaching back for. What is measured already is not measured again."""
        answers = [i for i, m in enumerate(messages) if isinstance(m, ModelResponse)]
        self.requests = max(self.requests, len(answers))
        growth = self.schedule.growth
        if growth.requests == 0 and growth.last_size is None and answers:
            steps = [self.calibration.tokens(self.estimate(messages[a:b])) for a, b in itertools.pairwise(answers)]
            growth.seed(steps)
            # The size when the newest answer was asked for: the next request adds that answer and what followed.
            growth.rebase(self.calibration.tokens(self.estimate(messages[:answers[0]])) + sum(steps))
        reuse = self.schedule.reuse
        if reuse is not None and not reuse.reaches:
            reuse.learn(messages)

    def _replaced_boundary(self) -> dict[str, Any]:
        note, self.rewrite_note = self.rewrite_note or {}, None  # a prompt cut to the window (refit.py)
        return {"trigger": "history_changed", "strategy": "replace", "tokens_before": 0, "tokens_after": 0,
                "archive": "", "time": self.clock().isoformat(), "messages_summarized": 0, **note}

    # -- compactions -------------------------------------------------------------------------
    def apply_result(self, result: CompactionResult, going_ahead: Callable[[], None] | None = None) -> None:
        """Persist a compaction (boundary + new history) and account for it. `going_ahead` is called
        once the store holds the new history, before anything is accounted (`compact_now` commits
        its summary request's view there: a rewrite that fails leaves it uncommitted)."""
        if self.store is not None:
            try:
                self.store.rewrite({"trigger": result.trigger, "strategy": result.strategy,
                                    "tokens_before": result.tokens_before, "tokens_after": result.tokens_after,
                                    "archive": str(result.archive or ""), "time": self.clock().isoformat(),
                                    "messages_summarized": result.summarized}, result.messages)
            except Exception as e:  # noqa: BLE001 - a store of the caller's own may raise anything
                raise CompactionError(f"could not save the compacted history, so the history was not rewritten: "
                                      f"{one_line(e)}") from e
        self._sync.reset(result.messages)
        if going_ahead is not None:
            going_ahead()
        # Only the newest result's history is ever used again (as the history to go on with); an
        # older one kept its whole compacted history (and summary) alive: memory grew with every
        # compaction. The archive and the session file keep both.
        if self.compactions:
            self.compactions[-1].messages, self.compactions[-1].summary = [], ""
        self.compactions.append(result)
        self._prev_savings, self._rebaseline = {}, True  # the next view's savings are of the new history
        # Decisions about messages gone for good, and those hiding the results it kept for the model.
        frozen.after_compaction(list(self.layers), result.messages, result.kept)
        self._save_layer_state()  # a restart before the next request must not count from the old history
        self._last_compaction_request = self.requests
        self._answered_since_compaction = False
        self._sent = (0, None)  # the request last sent showed the history before this compaction
        if self.memory is not None:
            self.memory.after_compaction(result)
        self.schedule.after_compaction(result, self.calibration.tokens(tokens.text_tokens(result.summary)),
                                       self.measure(result.messages) - self.calibration.tokens(self.overhead),
                                       records=self._records_kept(result))
        if self._reason:
            result.event.detail["reason"] = self._reason
            if self._reason == "priced":  # before the threshold: the line that reports it says which
                result.event.detail["threshold"] = self.limits.threshold
            self._reason = ""
        self.emit(result.event)

    def _records_kept(self, result: CompactionResult) -> int:
        """Tokens of the records the compacted history starts with (a record, or a kept compaction
        message with an update appended): its compaction message less what a summary carries too."""
        head = result.messages[0] if result.messages else None
        if head is None or not is_compaction_message(head) or not (
                result.strategy == "record" or result.event.detail.get("incremental")):
            return 0
        return self.calibration.tokens(max(0, tokens.estimate([head]) - carried_tokens(
            head, self.limits.user_messages_budget)))

    def learn_from_overflow(self, text: str, room: int = 0) -> None:
        """The provider said how big the prompt was and what its limit is: believe it (`learn_window`;
        tokens_before: the prompt refused, 0 if not said; tokens_after: the limit; `room`: the answer's)."""
        used, window = figures(text)
        if used is not None:
            self.calibration.observe(used, *self.last_view_observed)
        if window is not None:
            self.learn_window(window, used or 0, "reactive", room=room)

    def learn_window(self, window: int, used: int, trigger: str, request: str = "", room: int = 0) -> None:
        """The server's limit, below the window (the one given where `limits` are held to a run's smaller limit,
        which holds still: request_limit.py): kept (`window_learned`, saved at once) and said, an event "window"
        "learned" (`trigger` "reactive": a refusal, "cut": prompts it cut unsaid; `request` "summary", `room`)."""
        if window >= (whole := request_limit.window_of(self)):
            return
        given = self.window_learned.given if self.window_learned is not None else self.window or whole
        if not request_limit.learned_above(self, window):
            self.set_window(window)
        self.window_learned = LearnedWindow(window, given, self.server)
        self._save_layer_state()  # the next run (`-c`) is held to it, whatever becomes of this one
        self.emit(Event("window", "learned", used, window, trigger=trigger,
                        detail={"given": given, **{k: v for k, v in (("request", request), ("room", room)) if v}}))
