"""The default order of the view layers: cheapest and most local first.

L1 budget works on single results and is always safe; L2 snip drops what carries no information;
L3 microcompact clears old tool output in batches; L4 collapse folds whole old rounds. Each is a
separate module that knows nothing of the others; this is the one place that orders them.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable

from ..plumbing.events import Layer
from ..plumbing.settings import OPTIONAL_FIELDS, kind, said
from ..plumbing.settings import CompactionSettings as Settings
from ..plumbing.stores import HistoryStore, SideFiles
from .budget import ToolResultBudget
from .collapse import ContextCollapse
from .microcompact import COMPACTABLE, Microcompact
from .previews import Tools
from .snip import Snip


def default_layers(settings: Settings, store: HistoryStore | SideFiles | None = None, *,
                   server_side_clearing: bool = False, compactable: Iterable[str] | None = None,
                   preview_tools: Tools | None = None) -> list[Layer]:
    """The four view layers in order. `store`: where L1 spills and L4 logs, when it offers side
    files (`SideFiles`); any other store, or None, keeps both in memory (a long result is sent as its
    preview, unspilled), as the manager's own layers do with it. `server_side_clearing`: the provider
    clears old tool results itself (Anthropic's context management), so microcompact must not also
    clear them locally. `compactable`: the tools whose old results microcompact may clear (default:
    the coding tools), plus `settings.compactable_tools`. `preview_tools`: the tools (name -> their
    parameters) a spilled result's preview may tell the model to read the rest with, until a request
    lists the agent's own (`lifecycle.agent_tools`; default: none, for requests that always list them)."""
    _check(settings, compactable)
    if isinstance(store, type) or not (store is None or isinstance(store, HistoryStore | SideFiles)):
        raise TypeError("default_layers: store must be a store (a HistoryStore, or one with side_dir() to spill "
                        f"long tool results: SideFiles) or None, not {kind(store)}")
    files = store if isinstance(store, SideFiles) else None  # an InMemoryStore has none (it failed on side_dir)
    tools = frozenset(compactable if compactable is not None else COMPACTABLE) | frozenset(settings.compactable_tools)
    spill = files.side_dir("tool-results") if files is not None else None
    log = files.side_dir("collapse") / "commits.jsonl" if files is not None else None
    layers: list[Layer] = [ToolResultBudget(settings, spill, preview_tools), Snip(),
                           Microcompact(settings, tools, server_side=server_side_clearing)]
    if settings.collapse_enabled:
        layers.append(ContextCollapse(settings, log))  # its numbers are the settings' own
    return layers


def _check(settings: object, compactable: object) -> None:
    """`default_layers(None)` failed inside a layer ("'NoneType' object has no attribute ..."), and one
    tool's name as text was taken as its letters. Settings of another class with the fields will do."""
    if isinstance(settings, type) or not all(hasattr(settings, f.name) for f in dataclasses.fields(Settings)
                                             if f.name not in OPTIONAL_FIELDS):
        raise TypeError("default_layers: settings must be a CompactionSettings (CompactionSettings() for the "
                        f"defaults), not {kind(settings)}")
    if compactable is None:
        return
    if isinstance(compactable, str | bytes) or not isinstance(compactable, Iterable):
        raise TypeError(f"default_layers: compactable must be a list of tool names, not {said(compactable)}")
    for i, tool in enumerate(list(compactable)):
        if not isinstance(tool, str):
            raise TypeError(f"default_layers: compactable must be a list of tool names, but item {i + 1} is "
                            f"{kind(tool)}, not a name")
