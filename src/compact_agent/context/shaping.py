"""The view layers (L1 budget → L2 snip → L3 microcompact → L4 collapse) run over a history: for a
request (`shape`), and for a look at the request (`preview`).

A request's shaping commits: what the layers decide is frozen and re-applied on every later request,
their savings are accounted (`view_savings`, `layer_savings`) and their events emitted. /context,
/status and the toolbar show the view the next request would send, and looking must not decide for
that request: the toolbar redrawn while the user types froze a clearing or a collapse that the
request, with the new message in it, would have made otherwise, counted its savings and emitted its
events. `preview` runs the same layers on copies of their decisions (a layer's `scratch()`: no spill
file written, no commit logged; a deep copy of a layer without one), accounts nothing, emits
nothing and leaves the manager as it found it.
"""

from __future__ import annotations

import copy
import logging
from dataclasses import dataclass
from typing import Any

from pydantic_ai.messages import ModelMessage

from . import lifecycle
from .plumbing import tokens
from .plumbing.events import Event, Stopwatch, one_line
from .state import ManagerState

log = logging.getLogger(__name__)


@dataclass
class Shaped:
    """A view, and what the layers took out of it."""

    messages: list[ModelMessage]
    suppressed: bool  # collapse holds auto-compact off
    savings: dict[str, int]  # tokens each layer took out of this view (`view_savings` of a request)
    layers: list[Any]  # the layers as they decided it: the manager's own, or a preview's copies


def shape(cm: ManagerState, messages: list[ModelMessage]) -> Shaped:
    """Shape the view of a request: decisions frozen, savings accounted, events emitted."""
    return _run(cm, messages, list(cm.layers), commit=True)


def preview(cm: ManagerState, messages: list[ModelMessage]) -> Shaped:
    """The view a request of `messages` would send now, changing nothing: no decision frozen, no
    saving counted, no event emitted, no file written."""
    layers = [twin for layer in cm.layers if (twin := scratch(layer)) is not None]
    credit = cm.schedule.credit  # `cm.budget` sets it, for the layers' pricing (Schedule.next_compaction_at)
    try:
        return _run(cm, messages, layers, commit=False)
    finally:
        cm.schedule.credit = credit


def scratch(layer: Any) -> Any | None:
    """A copy of `layer` whose decisions go nowhere: its own `scratch()`, else a deep copy; None
    (the look goes without it) when it cannot be copied."""
    own = getattr(layer, "scratch", None)
    try:
        return own() if callable(own) else copy.deepcopy(layer)
    except Exception as e:  # noqa: BLE001 - a look at the view must not fail for a layer it cannot copy
        log.debug("the %s layer cannot be copied for a look at the view: %s", getattr(layer, "name", "?"), one_line(e))
        return None


def _run(cm: ManagerState, messages: list[ModelMessage], layers: list[Any], *, commit: bool) -> Shaped:
    view = messages
    suppressed = False
    savings: dict[str, int] = {}
    if commit:
        cm.view_savings = savings
    size = tokens.estimate(view)
    measured = cm._measured(view, size)  # the view's size, measured once per change of the view
    for layer in layers:
        watch = Stopwatch()
        try:
            result = layer.apply(view, cm.budget(measured))
        except Exception as e:  # noqa: BLE001 - a view layer that fails costs its savings, never the turn
            if commit:
                cm.emit(Event(layer.name, "failed", detail={"error": one_line(e)}))
                cm._reset_layer(layer, e)
            continue
        # What this layer took out of this request (its events report decisions, not requests).
        shaped = tokens.estimate(result.messages)
        savings[layer.name], size = size - shaped, shaped
        view = result.messages
        measured = cm._measured(view, shaped)
        if commit:
            grown = lifecycle.account(cm, layer.name, bool(result.events))
            for ev in result.events:
                if not ev.duration_ms:
                    ev.duration_ms = watch.ms()
                if ev.freed is None:
                    ev.freed, grown = max(0, grown), 0
                cm.emit(ev)
        check = getattr(layer, "suppresses_autocompact", None)
        if check is not None and check(measured, cm.budget(measured)):
            suppressed = True
    if commit:
        cm._rebaseline = False
    return Shaped(view, suppressed, savings, layers)
