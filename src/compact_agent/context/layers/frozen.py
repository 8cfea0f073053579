"""The view layers' frozen decisions, kept across a restart.

A decision a layer made for a tool call (replaced, cleared, snipped, collapsed) is re-applied
identically on every later request, so the provider's cached prefix stays valid; a session resumed
after a restart must send the same prefix, so the decisions are saved when a request changed them
and re-applied when the session is opened again. The saved file is data: a part that cannot be
loaded costs that layer its decisions (it re-decides, losing some cache once), never the session.
Saving and loading are optional for a layer (`state_to_json`, `load_state`).

A compaction changes them once, when it goes ahead (`after_compaction`): decisions about what it
left out are forgotten, and those hiding a result it kept for the model are lifted (`keep_whole`).
"""

from __future__ import annotations

import json
import logging
from collections.abc import Collection, Sequence
from typing import Any

from pydantic_ai.messages import ModelMessage

from ..plumbing.events import one_line

log = logging.getLogger(__name__)


def layer_state(layers: Sequence[Any]) -> dict[str, Any]:
    """What every layer that can save its decisions holds now, by layer name."""
    return {layer.name: layer.state_to_json() for layer in layers if hasattr(layer, "state_to_json")}


def state_key(state: dict[str, Any]) -> str:
    """`state` as the text compared to tell whether it changed since it was last saved."""
    return json.dumps(state, sort_keys=True, default=str)


def load_layer_state(layers: Sequence[Any], state: object, besides: Collection[str] = ()) -> str:
    """Re-apply saved decisions (`state`, as read from the file) to `layers`; returns the key of
    what they hold afterwards (what is now saved). Each part it cannot use is named in a warning
    (`besides`: the names of the parts that are not a layer's, read elsewhere), none is raised."""
    if not isinstance(state, dict):
        log.warning("the saved layer decisions are not a JSON object; every layer starts afresh")
        state = {}
    names = {layer.name for layer in layers}
    for name in state:
        if name not in names and name not in besides:
            log.warning("the saved state holds %r, which is no layer's here; it is left out", name)
    for layer in layers:
        d = state.get(layer.name)
        if d is None or not hasattr(layer, "load_state"):
            continue
        if not isinstance(d, dict):
            log.warning("the saved decisions of the %s layer are unusable (not a JSON object: %s); it starts afresh",
                        layer.name, type(d).__name__)
            continue
        try:
            layer.load_state(d)
            held = layer.state_to_json()
            state_key(held)  # must save again, too
        except Exception as e:  # noqa: BLE001 - the file is data: a corrupt state only costs re-deciding
            reset_layer(layer, e)
            continue
        for key in d:
            if key not in held:
                log.warning("the saved decisions of the %s layer hold %r, which it does not know; it is left out",
                            layer.name, key)
    return state_key(layer_state(layers))


def reset_layer(layer: Any, error: BaseException) -> None:
    """Forget a layer's frozen decisions (damaged on disk, or they broke a request): it
    re-decides, which costs some cache once, instead of failing every request."""
    log.warning("the saved decisions of the %s layer are unusable (%s); it starts afresh",
                layer.name, one_line(error))
    try:
        layer.load_state({})
    except Exception:  # noqa: BLE001 - a layer without a clean reset keeps what it has
        return


def after_compaction(layers: Sequence[Any], messages: list[ModelMessage], kept: Collection[str]) -> None:
    """What a compaction that went ahead, leaving `messages`, changes of the layers' decisions: those
    about results gone for good are forgotten (`forget_absent`: the state is saved with every
    request and would grow with the session's length), and those hiding a result it kept for the
    model (`keep_whole`)."""
    for layer in layers:
        if hasattr(layer, "forget_absent"):
            layer.forget_absent(messages)
        keep_whole(layer, kept)


def keep_whole(layer: Any, kept: Collection[str]) -> None:
    """Have `layer` lift what it decided to hide of the tool results of the call ids `kept`, those a
    compaction keeps for the model (`CompactionResult.kept`), where it has such decisions
    (`keep_whole`): after the compaction, and on a copy of it to measure the compaction before. Only
    this compaction's: a result an earlier one kept, hidden since it went out of use, stays hidden."""
    lift = getattr(layer, "keep_whole", None)
    if kept and callable(lift):
        lift(kept)
