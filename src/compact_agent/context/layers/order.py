"""The default order of the view layers: cheapest and most local first.

L1 budget works on single results and is always safe; L2 snip drops what carries no information;
L3 microcompact clears old tool output in batches; L4 collapse folds whole old rounds. Each is a
separate module that knows nothing of the others; this is the one place that orders them.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING

from ..plumbing.settings import CompactionSettings as Settings
from ..plumbing.stores import SideFiles
from .budget import ToolResultBudget
from .collapse import ContextCollapse
from .microcompact import COMPACTABLE, Microcompact
from .snip import Snip

if TYPE_CHECKING:  # the protocol the layers follow; wiring.py imports what builds on them
    from ..wiring import Layer


def default_layers(settings: Settings, store: SideFiles | None = None, *,
                   server_side_clearing: bool = False, compactable: Iterable[str] | None = None) -> list[Layer]:
    """The four view layers in order. `store`: where L1 spills and L4 logs (None: in memory).
    `server_side_clearing`: the provider clears old tool results itself (Anthropic's context
    management), so microcompact must not also clear them locally. `compactable`: the tools whose
    old results microcompact may clear (default: the coding tools), plus `settings.compactable_tools`."""
    tools = frozenset(compactable if compactable is not None else COMPACTABLE) | frozenset(settings.compactable_tools)
    spill = store.side_dir("tool-results") if store is not None else None
    log = store.side_dir("collapse") / "commits.jsonl" if store is not None else None
    layers: list[Layer] = [ToolResultBudget(settings, spill), Snip(),
                           Microcompact(settings, tools, server_side=server_side_clearing)]
    if settings.collapse_enabled:
        layers.append(ContextCollapse(settings, log))  # its numbers are the settings' own
    return layers
