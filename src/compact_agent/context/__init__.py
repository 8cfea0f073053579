"""Context management for pydantic-ai agents: every request stays inside the model's window.

    from pydantic_ai import Agent
    from compact_agent.context import ContextManager

    agent = Agent(model, capabilities=[ContextManager(window=16_000)])

Before every model request, four view layers shape what is sent (L1 tool-result budget, L2 snip,
L3 microcompact, L4 collapse) and, when it pays at the model's prices (at the threshold when the
prices are not known; at the latest at the window's hard limit), a compaction rewrites the history
after archiving it: a summary written by the run's own model, sharing its cached prefix, or, where
that is priced cheaper, a record of the steps written without a model (session notes, off by
default, can stand in). A provider's "prompt too long" is answered by compacting and retrying
once. See docs/library.md; docs/pipeline.md says where each part lives. This package imports only pydantic-ai and the standard library, reads no
environment and writes no file unless it is given a store that does.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # what type checkers and editors see; at run time each name loads on first use
    from .compaction.compactor import Compactor
    from .compaction.memory import SessionMemory
    from .compaction.restore import Restorer
    from .compaction.result import (
        CompactionBlocked,
        CompactionError,
        CompactionResult,
        NotSmaller,
        Summarize,
        SummaryNotSent,
    )
    from .compaction.summarizer import SharedPrefixSummarizer
    from .compaction.summary_prompt import SummaryWording
    from .contract import HistoryNotLoaded, HistoryNotSaved
    from .decisions.economics import CompactionPlan, Prices
    from .layers.order import default_layers
    from .lifecycle import ConversationBusy
    from .pipeline import (
        BeforeCompact,
        ContextManager,
        Layer,
        SummarizerFactory,
        TokenCounter,
        WindowTooSmallError,
    )
    from .plumbing.events import (
        Budget,
        BudgetEvent,
        CollapseEvent,
        CompactionEvent,
        CompactionStartedEvent,
        ContextManagerEvent,
        ConversationEvent,
        Event,
        LayerResult,
        MicrocompactEvent,
        NotesEvent,
        SnipEvent,
    )
    from .plumbing.overflow import LearnedWindow
    from .plumbing.refusal import NoRoomForConversation
    from .plumbing.settings import CompactionSettings, Limits
    from .plumbing.stores import HistoryStore, InMemoryStore, SideFiles

__all__ = [
    "BeforeCompact",
    "Budget",
    "BudgetEvent",
    "CollapseEvent",
    "CompactionBlocked",
    "CompactionError",
    "CompactionEvent",
    "CompactionPlan",
    "CompactionResult",
    "CompactionSettings",
    "CompactionStartedEvent",
    "Compactor",
    "ContextManager",
    "ContextManagerEvent",
    "ConversationBusy",
    "ConversationEvent",
    "Event",
    "HistoryNotLoaded",
    "HistoryNotSaved",
    "HistoryStore",
    "InMemoryStore",
    "LayerResult",
    "Layer",
    "LearnedWindow",
    "Limits",
    "MicrocompactEvent",
    "NoRoomForConversation",
    "NotSmaller",
    "NotesEvent",
    "Prices",
    "Restorer",
    "SessionMemory",
    "SharedPrefixSummarizer",
    "SideFiles",
    "SnipEvent",
    "Summarize",
    "SummarizerFactory",
    "SummaryNotSent",
    "SummaryWording",
    "TokenCounter",
    "WindowTooSmallError",
    "default_layers",
]

#: Where each public name lives. A program that needs only the settings (a CLI reading its config)
#: does not pay for importing pydantic-ai's agent machinery: each name loads on first use.
_EXPORTS: dict[str, str] = {
    "Budget": ".plumbing.events",
    "BudgetEvent": ".plumbing.events",
    "CollapseEvent": ".plumbing.events",
    "BeforeCompact": ".pipeline",
    "CompactionBlocked": ".compaction.result",
    "CompactionError": ".compaction.result",
    "CompactionEvent": ".plumbing.events",
    "CompactionPlan": ".decisions.economics",
    "CompactionResult": ".compaction.result",
    "CompactionSettings": ".plumbing.settings",
    "Compactor": ".compaction.compactor",
    "CompactionStartedEvent": ".plumbing.events",
    "ContextManager": ".pipeline",
    "ContextManagerEvent": ".plumbing.events",
    "ConversationBusy": ".lifecycle",
    "Event": ".plumbing.events",
    "HistoryNotLoaded": ".contract",
    "HistoryNotSaved": ".contract",
    "HistoryStore": ".plumbing.stores",
    "InMemoryStore": ".plumbing.stores",
    "LayerResult": ".plumbing.events",
    "ConversationEvent": ".plumbing.events",
    "Layer": ".pipeline",
    "LearnedWindow": ".plumbing.overflow",
    "Limits": ".plumbing.settings",
    "MicrocompactEvent": ".plumbing.events",
    "NoRoomForConversation": ".plumbing.refusal",
    "NotSmaller": ".compaction.result",
    "NotesEvent": ".plumbing.events",
    "Prices": ".decisions.economics",
    "Restorer": ".compaction.restore",
    "SessionMemory": ".compaction.memory",
    "SharedPrefixSummarizer": ".compaction.summarizer",
    "SideFiles": ".plumbing.stores",
    "SnipEvent": ".plumbing.events",
    "Summarize": ".compaction.result",
    "SummarizerFactory": ".pipeline",
    "SummaryNotSent": ".compaction.result",
    "SummaryWording": ".compaction.summary_prompt",
    "TokenCounter": ".pipeline",
    "WindowTooSmallError": ".pipeline",
    "default_layers": ".layers.order",
}


def __getattr__(name: str) -> Any:
    module = _EXPORTS.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(importlib.import_module(module, __name__), name)
    globals()[name] = value  # later lookups skip this function
    return value


def __dir__() -> list[str]:
    return sorted({*globals(), *__all__})
