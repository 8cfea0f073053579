"""The run and conversation side of `ContextManager`: state per conversation, the end of a run,
compaction outside a run, and which model writes a summary.

pydantic-ai asks a capability for the instance to use for each run (`for_run`). The frozen layer
decisions, the calibration, the notes and the history belong to one conversation, so the first
conversation is served by the instance itself and every other `conversation_id` by a copy built
from the same arguments; objects the caller built (a store, layers, notes, a compactor) cannot be
copied, so with them a second conversation is refused instead of silently mixed in.
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from opentelemetry.trace import NoOpTracer, Tracer
from pydantic_ai.exceptions import UserError
from pydantic_ai.messages import ModelMessage
from pydantic_ai.models import Model, infer_model
from pydantic_ai.run import AgentRunResult
from pydantic_ai.tools import RunContext

from .compactor import CompactionError, Compactor, Summarize
from .layers import default_layers
from .memory import SessionMemory
from .microcompact import Microcompact
from .settings import Limits
from .stores import HistoryStore, InMemoryStore, SideFiles
from .summarizer import SharedPrefixSummarizer
from .wiring import Internals

#: Limits until the model's own window is read (never used for a request: it is read first).
_PROVISIONAL_WINDOW = 8_192

if TYPE_CHECKING:
    from .pipeline import ContextManager


class RunLifecycle:
    """Mixed into `ContextManager` (whose fields and pipeline methods these use)."""

    def _build_defaults(self: ContextManager, window: int | None, store: HistoryStore | None,
                        internals: Internals) -> None:
        """Whatever the caller left out: limits from the window, an in-memory store, the default
        layers (side files if the store offers them), in-memory notes, the shared-prefix summary."""
        # What the caller built belongs to one conversation; what we build can be built again.
        self._owned = [name for name, given in (("store", store), ("layers", internals.layers),
                                                ("memory", internals.memory), ("compactor", internals.compactor))
                       if given is not None]
        # No window and no limits: the model's own, read at the first request (`_window_from`).
        self._window_unknown = window is None and internals.limits is None
        if internals.limits is not None:
            self.limits = internals.limits
        else:
            self.limits = Limits.for_window(window or _PROVISIONAL_WINDOW, self.max_output, self.settings)
        self.window = self.limits.window
        self.store = store if store is not None else InMemoryStore()
        self._all_tools = self.compactable_tools is None and internals.layers is None
        if internals.layers is not None:
            self.layers = internals.layers
        else:
            side = self.store if isinstance(self.store, SideFiles) else None
            self.layers = list(default_layers(self.settings, side, compactable=self.compactable_tools))
        self._own_memory = internals.memory is None and self.settings.memory_enabled
        self.memory = SessionMemory(None, self.settings, clock=self.clock) if self._own_memory else internals.memory
        self.summarizer = internals.summarizer or default_summarizer
        self.compactor = internals.compactor or Compactor(self.limits)
        self.run_model: Model | None = None  # the model of the latest run (writes summary and notes)
        self._now_model: Model | None = None
        self._tracer: Tracer = NoOpTracer()
        self._conversation: str | None = None
        self._others: OrderedDict[str, ContextManager] = OrderedDict()
        self._prev_savings: dict[str, int] = {}
        self._rebaseline = False

    def _account(self: ContextManager, name: str, decided: bool) -> int:
        """What the layer's saving grew by since the previous request, added to `layer_savings`.

        A decision is frozen and re-applied on every later request, so the growth is what this
        request's new decisions freed (the events' own figures are of the whole view, every earlier
        decision included). It can be negative: L3 clearing a result L4 had already folded leaves L4
        less to fold. So `layer_savings` sums to what all layers keep out of the view, each token
        counted once. After a compaction the first request only sets the new baseline.
        """
        now = self.view_savings[name]
        if self._rebaseline and not decided:
            grown = 0
        else:
            grown = now - self._prev_savings.get(name, 0)
        self._prev_savings[name] = now
        self.layer_savings[name] = self.layer_savings.get(name, 0) + grown
        return grown

    async def for_run(self: ContextManager, ctx: RunContext[Any]) -> ContextManager:  # type: ignore[override]
        """The state for this run's conversation: this instance for the first conversation, a
        fresh copy for each other one (their frozen decisions, notes and history must not mix)."""
        key = ctx.conversation_id or ""
        if self._conversation is None or self._conversation == key:
            self._conversation = key
            return self
        other = self._others.get(key)
        if other is not None:
            self._others.move_to_end(key)
            return other
        if self._owned:
            raise UserError(
                f"this ContextManager was given its own {', '.join(self._owned)}, which hold one conversation "
                f"({self._conversation!r}), and cannot also serve conversation {key!r}: create one "
                "ContextManager per conversation, or leave those arguments out")
        known = not self._window_unknown
        other = type(self).wired(self._internals_now(limits=self.limits if known else None),
                                 window=self.window if known else None, **self._options_now())
        other._conversation = key
        self._others[key] = other
        while len(self._others) > self.max_conversations:
            self._others.popitem(last=False)
        return other

    def _options_now(self: ContextManager) -> dict[str, Any]:
        """The public options as they are now (a caller may have set `event_handler` since)."""
        return {"max_output": self.max_output, "settings": self.settings, "summary_model": self.summary_model,
                "token_counter": self.token_counter, "compactable_tools": self.compactable_tools,
                "event_handler": self.event_handler, "notes_in_background": self.notes_in_background,
                "max_conversations": self.max_conversations, "prices": self.prices}

    def _internals_now(self: ContextManager, limits: Limits | None) -> Internals:
        """What another conversation's copy is wired with: the same, but its own layers, notes and
        compactor (built afresh) and the limits this one has now."""
        return Internals(limits=limits, summarizer=self.summarizer, clock=self.clock, event_sink=self.event_sink,
                         on_compact_start=self.on_compact_start, provider=self.provider,
                         cache_ttl_s=self.cache_ttl_s, save_state=self.save_state,
                         before_compact=self.before_compact, after_compact=self.after_compact,
                         keep_system_prompts=self.keep_system_prompts)

    def _window_from(self: ContextManager, model: Model) -> None:
        """`ContextManager()` without a window: the model's, where pydantic-ai knows it."""
        if not self._window_unknown:
            return
        known = getattr(model, "context_window", None)  # pydantic-ai 2.68+: from the model's profile
        if not isinstance(known, int) or known <= 0:
            raise UserError(f"ContextManager needs the context window of model {model.model_name!r}, which "
                            "pydantic-ai does not know: ContextManager(window=...)")
        self._window_unknown = False
        self.set_window(known)

    def conversation(self: ContextManager, conversation_id: str) -> ContextManager | None:
        """The state kept for `conversation_id` (its store, compactions, savings), if any."""
        if self._conversation == conversation_id:
            return self
        return self._others.get(conversation_id)

    async def wrap_run(self: ContextManager, ctx: RunContext[Any], *, handler: Any) -> AgentRunResult[Any]:
        try:
            return await handler()
        except BaseException:
            if self.memory is not None and not self.notes_in_background:
                self.memory.close()  # a failed or cancelled run leaves no task behind
            raise
        finally:
            if self.memory is not None and not self.notes_in_background:
                await self.memory.drain(None)

    async def after_run(self: ContextManager, ctx: RunContext[Any], *, result: AgentRunResult[Any]) -> AgentRunResult[Any]:
        """Persist what the run added after its last model request (the final response)."""
        self.persist(result.all_messages())
        return result

    async def drain(self: ContextManager, timeout: float | None = None) -> None:
        """Wait for background notes in flight (all conversations), then cancel what is left.
        Needed only with `notes_in_background=True`, before the event loop ends."""
        for cm in [self, *self._others.values()]:
            if cm.memory is not None:
                await cm.memory.drain(timeout)

    async def compact_now(self: ContextManager, messages: Sequence[ModelMessage], *, instructions: str = "",
                          model: Model | str | None = None) -> list[ModelMessage]:
        """Compact `messages` (this conversation's history) now, outside a run; returns the new history.

        The summary comes from `model`, else `summary_model`, else the model of the latest run.
        Raises `CompactionError` when it cannot compact (nothing is changed then).
        """
        history = list(messages)
        self.persist(history)  # a history the store does not begin with rewrites the store (contract.py)
        self._now_model = as_model(model)
        try:
            view, _ = self.shape(list(history))
            result = await self.compact(history, trigger="manual", instructions=instructions, summary_input=view)
        finally:
            self._now_model = None
        self.failures = 0
        return list(result.messages)

    def _compact_tools(self: ContextManager, names: set[str]) -> None:
        """Every tool of the agent is compactable unless `compactable_tools` said which."""
        for layer in self.layers or ():
            if isinstance(layer, Microcompact) and not names <= layer.compactable:
                layer.compactable = frozenset(layer.compactable) | names

    def summary_model_for_now(self: ContextManager) -> Model:
        """The model that writes a summary now (see `summary_model`)."""
        model = self._now_model or as_model(self.summary_model) or self.run_model
        if model is None:
            raise CompactionError("no model to write the summary: pass summary_model=... to ContextManager, "
                                  "or model=... to compact_now()")
        return model


def as_model(model: Model | str | None) -> Model | None:
    return infer_model(model) if isinstance(model, str) else model


def default_summarizer(cm: ContextManager) -> Summarize:
    """The summary request repeats the latest main request (system prompt, tools, settings), so
    its input is a cache hit; with another `summary_model` only the structure is shared."""
    return SharedPrefixSummarizer(cm.summary_model_for_now(), params=cm.last_params, settings=cm.last_settings)
