"""What a `ContextManager` builds for whatever its caller left out.

`build_defaults` fills in, once per conversation (`ManagerState._setup`, state.py), what neither
the public options nor the agent's `Internals` (wiring.py) gave: limits from the window (a
provisional 8K until the model's own window is read), an in-memory store, the default view layers
(with side files if the store offers them), in-memory session notes when they are on, and a
compactor (`_setup` lets the schedule size its kept tail). `default_summarizer`, the summary that
shares the run's cached prefix, is the summarizer `_setup` takes when none was wired in; `as_model`
reads a model given by name.
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Callable, Sequence
from datetime import datetime
from typing import TYPE_CHECKING, Any, Protocol

from pydantic_ai.models import Model, infer_model

from .arguments import check_wording
from .compaction import in_run
from .compaction.compactor import Compactor
from .compaction.memory import SessionMemory
from .compaction.result import Summarize
from .compaction.summarizer import SharedPrefixSummarizer
from .compaction.summary_prompt import NEUTRAL, SummaryWording
from .layers.order import default_layers
from .plumbing.overflow import ModelWindows
from .plumbing.settings import CompactionSettings as Settings
from .plumbing.settings import Limits
from .plumbing.stores import HistoryStore, InMemoryStore, SideFiles
from .plumbing.tracing import NO_TRACER, NoTracer
from .wiring import Internals, Layer, SummaryInputs

if TYPE_CHECKING:  # the type of pydantic-ai's `RunContext.tracer`; never imported at run time (tracing.py)
    from opentelemetry.trace import Tracer

#: Limits until the model's own window is read (never used for a request: it is read first).
_PROVISIONAL_WINDOW = 8_192


class _Unbuilt(Protocol):
    """What of the manager (`ManagerState`) `build_defaults` reads and sets."""

    limits: Limits
    compactor: Compactor
    window: int | None
    store: HistoryStore
    layers: list[Layer]
    memory: SessionMemory | None
    run_model: Model | None
    output_caps: dict[str, int]
    _owned: list[str]
    _window_unknown: bool
    _window_of_model: bool
    _windows: ModelWindows
    _all_tools: bool
    _own_memory: bool
    _now_model: Model | None
    _tracer: Tracer | NoTracer
    _conversation: str | None
    _others: OrderedDict[str, Any]
    _manager: Any
    _starting: set[str | None]
    _prev_savings: dict[str, int]
    _rebaseline: bool

    @property
    def max_output(self) -> int: ...
    @property
    def summary_wording(self) -> SummaryWording | None: ...
    @property
    def settings(self) -> Settings: ...
    @property
    def compactable_tools(self) -> Sequence[str] | None: ...
    @property
    def clock(self) -> Callable[[], datetime]: ...


def build_defaults(cm: _Unbuilt, window: int | None, store: HistoryStore | None, internals: Internals) -> None:
    """Whatever the caller left out: limits from the window, an in-memory store, the default
    layers (side files if the store offers them), in-memory notes, a compactor."""
    # What the caller built belongs to one conversation; what we build can be built again.
    cm._owned = [name for name, given in (("store", store), ("layers", internals.layers),
                                            ("memory", internals.memory), ("compactor", internals.compactor))
                   if given is not None]
    # No window and no limits: the model's own, read at the first request (`_window_from`).
    cm._window_unknown = cm._window_of_model = window is None and internals.limits is None
    cm._windows = ModelWindows()
    if internals.limits is not None:
        cm.limits = internals.limits
    else:
        cm.limits = Limits.for_window(_PROVISIONAL_WINDOW if window is None else window, cm.max_output, cm.settings)
    cm.window = None if cm._window_unknown else cm.limits.window
    cm.store = store if store is not None else InMemoryStore()
    cm._all_tools = cm.compactable_tools is None and internals.layers is None
    if internals.layers is not None:
        cm.layers = internals.layers
    else:
        side = cm.store if isinstance(cm.store, SideFiles) else None
        cm.layers = list(default_layers(cm.settings, side, compactable=cm.compactable_tools))
    cm._own_memory = internals.memory is None and cm.settings.memory_enabled
    cm.memory = SessionMemory(None, cm.settings, clock=cm.clock) if cm._own_memory else internals.memory
    check_wording(cm.summary_wording, wired=internals.compactor is not None)
    cm.compactor = internals.compactor or Compactor(cm.limits, file_tools=own_file_tools(cm.settings),
                                                    wording=cm.summary_wording or NEUTRAL)
    cm.run_model = None  # the model of the latest run (writes summary and notes)
    cm.output_caps = {}  # what another summary model writes at most, where its refusal said (measuring.py)
    cm._now_model = None
    cm._tracer = NO_TRACER
    cm._conversation = None
    cm._others = OrderedDict()
    cm._manager = None
    cm._starting = set()
    cm._prev_savings = {}
    cm._rebaseline = False


def as_model(model: Model | str | None) -> Model | None:
    return infer_model(model) if isinstance(model, str) else model


def default_summarizer(cm: SummaryInputs) -> Summarize:
    """The summary request repeats the latest main request (system prompt, tools, settings), so
    its input is a cache hit; with another `summary_model` only the structure is shared, and the
    `max_tokens` of that model's own settings (`Model(settings=...)`), when it has one, is the
    most it is asked to write."""
    model = cm.summary_model_for_now()
    own = (model.settings or {}).get("max_tokens") if model is not cm.run_model else None
    most = own if isinstance(own, int) and own > 0 else None
    learned = getattr(cm, "output_caps", {}).get(f"{model.system}:{model.model_name}")  # a refusal said it
    if model is not cm.run_model and learned is not None:
        most = learned if most is None else min(most, learned)
    wording = getattr(cm, "summary_wording", None) or NEUTRAL  # `summary_wording`: who the transcript is with
    return SharedPrefixSummarizer(model, params=cm.last_params, settings=cm.last_settings, max_output=most,
                                  run=in_run.current(), assistant=wording.assistant)  # in a run: counts in it


def own_file_tools(settings: object) -> tuple[str, ...]:
    """`file_tools` in lower case, as the ledger compares tool names; () for a settings object of
    another class without it (`OPTIONAL_FIELDS`)."""
    return tuple(str(name).lower() for name in getattr(settings, "file_tools", ()))
