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

After the layers, a view over the hard limit only by the model's earlier thinking goes without it
(`thinking_out.thinking_over_limit`), and the next requests leave it out before the layers shape them, until
the view with it is back under the threshold (`thinking_out.thinking_held_out`): what the layers and the
pipeline then weigh, and what a look shows, is the request as it will be sent.

`compact_now` shapes the view its summary request sends the same way (`tentative`), and commits it
only once the compaction goes ahead: one that is blocked, declined, refused or fails must leave no
decision of that view frozen, no file written, no saving counted and no event claiming it happened.
"""

from __future__ import annotations

import copy
import logging
from collections.abc import Collection
from dataclasses import dataclass
from typing import Any

from pydantic_ai.messages import ModelMessage

from .decisions.fit import shrink_event
from .decisions.thinking_out import thinking_held_out, thinking_over_limit, thinking_still_out
from .layers import frozen
from .plumbing import history_state, tokens
from .plumbing.events import Event, Stopwatch, one_line
from .state import ManagerState

log = logging.getLogger(__name__)


def account(cm: ManagerState, name: str, decided: bool) -> int:
    """What the layer's saving grew by since the previous request.

    A decision is frozen and re-applied on every later request, so the growth is what this
    request's new decisions freed (the events' own figures are of the whole view, every earlier
    decision included). It can be negative: L3 clearing a result L4 had already folded leaves L4
    less to fold; `_net` says each token once from these. After a compaction the first request only
    sets the new baseline; so does a restart's first request (`load_layer_state`), where a layer that
    decides anew counts from the savings the previous process saved with its decisions: re-applied,
    those are not this one's.
    """
    now = cm.view_savings[name]
    if cm._rebaseline and not decided:
        grown = 0
    else:
        grown = now - cm._prev_savings.get(name, 0)
    cm._prev_savings[name] = now
    return grown


@dataclass
class Shaped:
    """A view, and what the layers took out of it."""

    messages: list[ModelMessage]
    suppressed: bool  # collapse holds auto-compact off
    savings: dict[str, int]  # tokens each layer took out of this view (`view_savings` of a request)
    layers: list[Any]  # the layers as they decided it: the manager's own, or a preview's copies


@dataclass
class Step:
    """What one layer did to the view: the events of its decisions, or the error it failed with."""

    layer: Any
    events: list[Event]
    error: Exception | None = None
    ms: float = 0.0


@dataclass
class Tentative:
    """A view shaped on copies of the layers' decisions (as `preview` does), kept aside until the
    compaction it is for goes ahead: `commit` then makes it the request's shaping (decisions frozen,
    spill files and collapse commits written, savings counted, events emitted); dropped, it leaves
    the manager as it found it."""

    shaped: Shaped
    pairs: list[tuple[Any, Any]]  # (the manager's layer, the copy that decided)
    steps: list[Step]

    def commit(self, cm: ManagerState) -> None:
        own = {id(twin): layer for layer, twin in self.pairs}
        for layer, twin in self.pairs:
            adopt(layer, twin)
        _commit(cm, [Step(own[id(s.layer)], s.events, s.error, s.ms) for s in self.steps], self.shaped.savings)


def shape(cm: ManagerState, messages: list[ModelMessage]) -> Shaped:
    """Shape the view of a request: decisions frozen, savings accounted, events emitted."""
    return _run(cm, messages, list(cm.layers), commit=True)


def preview(cm: ManagerState, messages: list[ModelMessage], kept: Collection[str] = ()) -> Shaped:
    """The view a request of `messages` would send now, changing nothing: no decision frozen, no
    saving counted, no event emitted, no file written. `kept`: the call ids of the results a
    compaction makes `messages` keep for the model, sent whole once it goes ahead whatever a layer
    decided of them before (`frozen.keep_whole`): the compaction is measured as it will be sent."""
    return tentative(cm, messages, kept).shaped


def tentative(cm: ManagerState, messages: list[ModelMessage], kept: Collection[str] = ()) -> Tentative:
    """The view a request of `messages` would send now, as `preview` shapes it, with what it takes
    to commit it later (`Tentative.commit`). `compact_now` shapes its summary request's view so:
    a compaction that is blocked, declined or fails must leave no decision of that view behind."""
    pairs = [(layer, twin) for layer in cm.layers if (twin := scratch(layer)) is not None]
    for _, twin in pairs:
        frozen.keep_whole(twin, kept)
    credit = cm.schedule.credit  # `cm.budget` sets it, for the layers' pricing (Schedule.next_compaction_at)
    steps: list[Step] = []
    try:
        shaped = _run(cm, messages, [twin for _, twin in pairs], commit=False, steps=steps)
    finally:
        cm.schedule.credit = credit
    return Tentative(shaped, pairs, steps)


def foreseen(cm: ManagerState, messages: list[ModelMessage]) -> list[Event]:
    """The layers' decisions the next request of `messages` would make that no request has made yet:
    the events a look at its view (`tentative`) decides, each with the saving that request would
    count for it (`freed`, as `_commit` counts it), changing nothing. /context, /status and a
    toolbar show the view a look shapes, so their figure drops as soon as a look decides; an
    application that says what the layers freed only from the events a request emits says it a
    request later (the REPL: a turn later, the figure halved with nothing said)."""
    look = tentative(cm, messages)
    ok = [step for step in look.steps if step.error is None]
    grown = [0 if cm._rebaseline and not step.events
             else look.shaped.savings.get(step.layer.name, 0) - cm._prev_savings.get(step.layer.name, 0) for step in ok]
    out: list[Event] = []
    for step, freed in zip(ok, _net(grown), strict=True):
        for ev in step.events:
            if ev.freed is None:
                ev.freed, freed = max(0, freed), 0
            out.append(ev)
    return out


def scratch(layer: Any) -> Any | None:
    """A copy of `layer` whose decisions go nowhere: its own `scratch()`, else a deep copy; None
    (the look goes without it) when it cannot be copied."""
    own = getattr(layer, "scratch", None)
    try:
        return own() if callable(own) else copy.deepcopy(layer)
    except Exception as e:  # noqa: BLE001 - a look at the view must not fail for a layer it cannot copy
        log.debug("the %s layer cannot be copied for a look at the view: %s", getattr(layer, "name", "?"), one_line(e))
        return None


def adopt(layer: Any, twin: Any) -> None:
    """Make what `twin` (a `scratch` copy of `layer`) decided the layer's own: its `adopt(twin)`,
    else its saved state loaded (`state_to_json` / `load_state`); a layer with neither keeps no
    decision of a view shaped on a copy and decides again at the next request."""
    try:
        own = getattr(layer, "adopt", None)
        if callable(own):
            own(twin)
        elif hasattr(layer, "load_state") and hasattr(twin, "state_to_json"):
            layer.load_state(twin.state_to_json())
    except Exception as e:  # noqa: BLE001 - as a layer whose saved decisions cannot be loaded: it re-decides
        frozen.reset_layer(layer, e)


def _run(cm: ManagerState, messages: list[ModelMessage], layers: list[Any], *, commit: bool,
         steps: list[Step] | None = None) -> Shaped:
    held = cm.thinking_left_out  # the model's earlier thinking left out since a request over the hard limit
    view, _, thinking = thinking_held_out(cm, messages) if held else (messages, 0, 0)
    suppressed = False
    savings: dict[str, int] = {}
    steps = [] if steps is None else steps
    builtin = tokens.estimate(view)
    size = _counted(cm, view, builtin)
    measured = cm._measured(view, builtin)  # the view's size, measured once per change of the view
    for layer in layers:
        watch = Stopwatch()
        try:
            result = layer.apply(view, cm.budget(measured))
        except Exception as e:  # noqa: BLE001 - a view layer that fails costs its savings, never the turn
            steps.append(Step(layer, [], e))
            continue
        steps.append(Step(layer, list(result.events), ms=watch.ms()))
        # What pydantic-ai reads back from the history (tools found, capabilities loaded, the
        # instructions' changes) the layer cleared or folded is kept (history_state.py).
        shown = history_state.kept(view, result.messages)
        # What this layer took out of this request (its events report decisions, not requests).
        builtin = tokens.estimate(shown)
        shaped = _counted(cm, shown, builtin)
        savings[layer.name], size = size - shaped, shaped
        view = shown
        measured = cm._measured(view, builtin)
        check = getattr(layer, "suppresses_autocompact", None)
        if check is not None and check(measured, cm.budget(measured)):
            suppressed = True
    if held:
        keep = thinking_still_out(cm, measured, thinking)
    else:
        view, after, cut = thinking_over_limit(cm, view, measured, cm.schedule.hard_limit(cm))
        if cut and commit:  # decided now: the next requests leave it out too
            cm.emit(shrink_event(measured, after, thinking=cut))
        keep = cut > 0
    if commit:
        cm.thinking_left_out = keep
        _commit(cm, steps, savings)
    return Shaped(view, suppressed, savings, layers)


def _counted(cm: ManagerState, view: list[ModelMessage], builtin: int) -> int:
    """The estimated size of `view` as the provider counts it (`cm.estimate`: without the thinking its
    reports showed it leaves out), the units of the layers' own events, given the built-in estimate
    of `view` already made. A fold of answers with long reasoning the provider did not count said
    "freed 11,372 tokens" in an 8K window, its event 3,869 → 1,615."""
    return cm.estimate(view) if cm.token_counter is not None else builtin - min(builtin, cm.left_out(view))


def _net(grown: list[int]) -> list[int]:
    """What each layer (in their order) newly took out of the request, from the growth of each one's
    saving (`account`): the figure its events say and `layer_savings` adds up: a layer's saving shrinks when one before it took out what it had already
    taken out (microcompact clearing results a collapse digest stood for), so that shrinking comes
    off the growth of the layers before it, the nearest first. Each token is then said once, and the
    lines of a turn add up to what the layers took out, never to more than the window."""
    out = [max(0, g) for g in grown]
    for i, g in enumerate(grown):
        for j in range(i - 1, -1, -1):
            if g >= 0:
                break
            taken = min(out[j], -g)
            out[j], g = out[j] - taken, g + taken
    return out


def _commit(cm: ManagerState, steps: list[Step], savings: dict[str, int]) -> None:
    """What a request's shaping does to the manager once the layers have decided: a failed layer
    reported and reset, each layer's saving accounted, its events emitted."""
    cm.view_savings = savings
    ok = [step for step in steps if step.error is None]
    freed = dict(zip((id(s) for s in ok), _net([account(cm, s.layer.name, bool(s.events)) for s in ok]), strict=True))
    for step in steps:
        layer = step.layer
        if step.error is not None:
            cm.emit(Event(layer.name, "failed", detail={"error": one_line(step.error)}))
            cm._reset_layer(layer, step.error)
            continue
        grown = freed[id(step)]
        cm.layer_savings.setdefault(layer.name, 0)
        for ev in step.events:
            if not ev.duration_ms:
                ev.duration_ms = step.ms
            if ev.freed is None:
                ev.freed, grown = max(0, grown), 0
            # The events' figures, added up: `layer_savings` and the lines of a turn (/status sums the
            # events) say the same per layer, each token once.
            cm.layer_savings[layer.name] += ev.tokens_freed
            cm.emit(ev)
    cm._rebaseline = False
