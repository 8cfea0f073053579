"""Invariants of the four view layers, alone and chained, over generated histories.

For every layer and for L1→L2→L3→L4: tool calls and results stay paired, the output is a fixed point
of `repair_messages`, it is never larger than the input, the same input and state give the same
bytes (also after a JSON round trip of the state), the input is left untouched, and decisions made
on a shorter history survive when the history grows.
"""

from __future__ import annotations

import copy
import json
from collections.abc import Callable
from datetime import timedelta
from typing import Any

from hypothesis import given
from hypothesis import strategies as st
from pydantic_ai.messages import (
    ModelMessage,
    ModelRequest,
    ModelResponse,
    ToolCallPart,
    UserPromptPart,
    repair_messages,
)

from compact_agent.context.layers.budget import ToolResultBudget
from compact_agent.context.layers.collapse import ContextCollapse
from compact_agent.context.layers.microcompact import Microcompact
from compact_agent.context.layers.snip import Snip
from compact_agent.context.plumbing.rounds import unpaired
from compact_agent.context.plumbing.tokens import estimate
from tests.context.strategies import (
    PROPS,
    REMINDER,
    budget_for,
    dump,
    histories,
    last_time,
    same_bytes,
    small_settings,
)

SETTINGS = small_settings()  # built once: pydantic-settings parses the environment on every construction
FACTORIES: dict[str, Callable[[], Any]] = {
    "budget": lambda: ToolResultBudget(SETTINGS, None),
    "snip": lambda: Snip(),
    "microcompact": lambda: Microcompact(SETTINGS),
    "collapse": lambda: ContextCollapse(SETTINGS, None),
}
THRESHOLDS = st.sampled_from([1_500, 4_000, 50_000])
GAPS = st.sampled_from([0, 600, 7_200])  # within and past the one-hour cache TTL


def apply_all(layers: list[Any], messages: list[ModelMessage], threshold: int, gap: int,
              check: bool = True) -> list[ModelMessage]:
    """What the pipeline does: each layer gets the previous view and a budget measured on it."""
    now = last_time(messages) + timedelta(seconds=gap)
    view = messages
    for layer in layers:
        snapshot = list(view)
        result = layer.apply(view, budget_for(view, now, threshold))
        if check:
            assert all(a is b for a, b in zip(view, snapshot, strict=True)) and len(view) == len(snapshot)
            check_valid(view, result.messages)
            assert result.tokens_freed == estimate(view) - estimate(result.messages)
        view = result.messages
    return view


def check_valid(before: list[ModelMessage], after: list[ModelMessage]) -> None:
    assert unpaired(after) == (set(), set())
    assert same_bytes(repair_messages(after), after)
    assert estimate(after) <= estimate(before)
    assert all(m.parts for m in after)


def check_deterministic(make: Callable[[], list[Any]], h: list[ModelMessage], threshold: int, gap: int) -> None:
    first_layers = make()
    first = apply_all(first_layers, h, threshold, gap)
    assert same_bytes(apply_all(make(), h, threshold, gap, check=False), first)  # a second fresh run
    assert same_bytes(apply_all(first_layers, h, threshold, gap, check=False), first)  # frozen state
    restored = make()
    for a, b in zip(first_layers, restored, strict=True):
        b.load_state(json.loads(json.dumps(a.state_to_json())))
    assert same_bytes(apply_all(restored, h, threshold, gap, check=False), first)


@PROPS
@given(h=histories(), threshold=THRESHOLDS, gap=GAPS)
def test_each_layer_alone_and_all_four_chained_keep_the_invariants(h: list[ModelMessage], threshold: int,
                                                                   gap: int) -> None:
    # One generated history serves all five checks: generating it costs more than checking it.
    original = dump(h)
    assert dump(repair_messages(h)) == original  # the generator's own promise
    for name, make in FACTORIES.items():
        try:
            check_deterministic(lambda make=make: [make()], h, threshold, gap)
        except AssertionError as e:
            raise AssertionError(f"layer {name}: {e}") from e
    check_deterministic(lambda: [f() for f in FACTORIES.values()], h, threshold, gap)
    assert dump(h) == original  # the input (the persisted history) is untouched


def valid_prefixes(h: list[ModelMessage]) -> list[int]:
    """Lengths k where h[:k] is itself a finished-looking history (no call left unanswered)."""
    return [k for k in range(1, len(h)) if not (isinstance(h[k - 1], ModelResponse)
                                              and any(isinstance(p, ToolCallPart) for p in h[k - 1].parts))]


@PROPS
@given(data=st.data(), h=histories(min_turns=2), threshold=THRESHOLDS, gap=GAPS)
def test_decisions_survive_a_growing_history(data: st.DataObject, h: list[ModelMessage], threshold: int,
                                             gap: int) -> None:
    k = data.draw(st.sampled_from(valid_prefixes(h)))
    layers = [f() for f in FACTORIES.values()]
    apply_all(layers, h[:k], threshold, gap, check=False)
    states = [copy.deepcopy(layer.state_to_json()) for layer in layers]
    apply_all(layers, h, threshold, gap, check=False)
    for before, layer in zip(states, layers, strict=True):
        after = layer.state_to_json()
        for key, value in before.items():
            if not value:
                continue
            if isinstance(value, dict):  # id -> decision: every decision kept as it was
                assert all(after[key].get(i) == v for i, v in value.items()), (layer.name, key)
            elif value and isinstance(value[0], dict):  # the collapse log: append-only
                assert after[key][: len(value)] == value, (layer.name, key)
            else:  # a set, stored sorted
                assert set(value) <= set(after[key]), (layer.name, key)


def typed(messages: list[ModelMessage]) -> list[Any]:
    """What the user said, in order: every prompt but the harness's reminders."""
    return [p.content for m in messages if isinstance(m, ModelRequest) for p in m.parts
            if isinstance(p, UserPromptPart) and not (isinstance(p.content, str) and p.content.startswith(REMINDER))]


@PROPS
@given(h=histories(), threshold=THRESHOLDS, gap=GAPS)
def test_what_the_user_typed_passes_the_layers_below_collapse_as_it_was(h: list[ModelMessage], threshold: int,
                                                                        gap: int) -> None:
    """Short replies ("ok", "继续") included: only collapse, near the threshold, folds old rounds
    (their asks in its digest), as a compaction would."""
    below = [FACTORIES[name]() for name in ("budget", "snip", "microcompact")]
    assert typed(apply_all(below, h, threshold, gap, check=False)) == typed(h)
