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
from dataclasses import replace
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
from .stores import InMemoryStore, SideFiles
from .summarizer import SharedPrefixSummarizer

if TYPE_CHECKING:
    from .pipeline import ContextManager


class RunLifecycle:
    """Mixed into `ContextManager` (whose fields and pipeline methods these use)."""

    def _build_defaults(self: ContextManager) -> None:
        """Whatever the caller left out: limits from the window, an in-memory store, the default
        layers (side files if the store offers them), in-memory notes, the shared-prefix summary."""
        # What the caller built belongs to one conversation; what we build can be built again.
        self._owned = [name for name in ("store", "layers", "memory", "compactor") if getattr(self, name) is not None]
        if self.limits is None:
            if self.window is None:
                raise UserError("ContextManager needs the model's context window: ContextManager(window=...)")
            self.limits = Limits.for_window(self.window, self.max_output, self.settings)
        self.window = self.limits.window
        if self.store is None:
            self.store = InMemoryStore()
        self._all_tools = self.compactable_tools is None and self.layers is None
        if self.layers is None:
            side = self.store if isinstance(self.store, SideFiles) else None
            self.layers = default_layers(self.settings, side, compactable=self.compactable_tools)
        self._own_memory = self.memory is None and self.settings.memory_enabled
        if self._own_memory:
            self.memory = SessionMemory(None, self.settings, clock=self.clock)
        if self.summarizer is None:
            self.summarizer = default_summarizer
        self.compactor = self.compactor or Compactor(self.limits)
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
        other = replace(self, store=None, layers=None, memory=None, compactor=None, limits=self.limits)
        other._conversation = key
        self._others[key] = other
        while len(self._others) > self.max_conversations:
            self._others.popitem(last=False)
        return other

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
