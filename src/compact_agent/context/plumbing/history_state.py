"""What pydantic-ai reads back from the history, kept over what a layer or a compaction leaves out.

pydantic-ai (2.68) keeps no record of some of a run's state but the history itself, and reads it
again before every request (`pydantic_ai.messages.post_compaction_window` says the rule):

- the tools the model found with tool search (`search_tools` returns) or that a tool, a newcomer to
  the toolset or a capability's load revealed (`ToolAvailabilityDeltaPart`): only those are offered
  to the model, and a call of another deferred tool is refused as unknown;
- the on-demand capabilities loaded (`load_capability` calls with their returns, or a
  `CapabilityLoadDeltaPart`): their tools, instructions and hooks apply only while they are loaded;
- the instructions' window (`InstructionBaselinePart`) and the changes of `on_change='append'`
  instructions after it (`InstructionDeltaPart`): a request states the window's first values and
  then each change, so a change left out is a stale value stated as the current one.

A compaction folds the messages holding them into its summary, and a view layer clears, previews or
folds them: the found tools were no longer offered, a loaded capability was unloaded, the request
after a compaction stated an instruction's old value. `carried` gives the few parts that put that
state back, in the form pydantic-ai itself writes it (a load by code is a `CapabilityLoadDeltaPart`
then a `ToolAvailabilityDeltaPart`; an instruction's newest value its newest `InstructionDeltaPart`),
for the compaction message to hold; `kept` does it for a view layer's output. Pairs of calls and
returns are not kept for it: a delta needs no call, and pydantic-ai renders it on every provider.

On a pydantic-ai without these parts (before 2.68) there is nothing to read, and both leave the
history as it is; so does a history without them (the analyzer's transcripts).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from typing import Any

from pydantic_ai import messages as _m
from pydantic_ai.messages import ModelMessage, ModelRequest, ToolReturnPart

__all__ = ["carried", "kept", "onto", "state_return"]


def _kind(name: str) -> Any:
    return getattr(_m, name, None)


_REVEAL, _LOAD = _kind("ToolAvailabilityDeltaPart"), _kind("CapabilityLoadDeltaPart")
_BASELINE, _CHANGE = _kind("InstructionBaselinePart"), _kind("InstructionDeltaPart")
_SEARCHED, _SEARCHED_NATIVE = _kind("ToolSearchReturnPart"), _kind("NativeToolSearchReturnPart")
_LOAD_CALL, _LOADED = _kind("LoadCapabilityCallPart"), _kind("LoadCapabilityReturnPart")
_CAPABILITY = _kind("CapabilityInstructionSource")
_KINDS: tuple[type, ...] = tuple(k for k in (_REVEAL, _LOAD, _BASELINE, _CHANGE, _SEARCHED, _SEARCHED_NATIVE,
                                             _LOAD_CALL, _LOADED) if k is not None)
_TYPED_RETURNS: tuple[type, ...] = tuple(k for k in (_SEARCHED, _LOADED) if k is not None)
SEARCH_TOOL = "search_tools"


@dataclass
class State:
    """The state pydantic-ai derives from a history, and the parts that say it."""

    found: dict[str, None] = field(default_factory=dict)  # tool names revealed, in order
    loaded: dict[str, None] = field(default_factory=dict)  # capability ids loaded, in order
    baseline: Any = None  # the instructions' window: its newest baseline part
    changes: dict[Any, Any] = field(default_factory=dict)  # instruction id -> its newest change in effect


def _window(messages: Sequence[ModelMessage]) -> list[ModelMessage]:
    """The messages pydantic-ai reads its state from: those from the newest compaction part on."""
    window = getattr(_m, "post_compaction_window", None)
    return list(window(messages)) if window is not None else list(messages)


def _loaded_block(instruction_id: Any) -> bool:
    """Whether an instruction id is a loaded capability's block, whose changes outlive a window."""
    return (_CAPABILITY is not None and getattr(instruction_id, "name", "") is None
            and isinstance(getattr(instruction_id, "source", None), _CAPABILITY))


def _matches(part: Any) -> list[str]:
    content = getattr(part, "content", None)
    found = content.get("discovered_tools") if isinstance(content, dict) else None
    return [str(m["name"]) for m in found if isinstance(m, dict) and "name" in m] if isinstance(found, list) else []


def read(messages: Sequence[ModelMessage]) -> State:
    """The state `messages` give pydantic-ai, read as it reads it (only its post-compaction window)."""
    state, calls = State(), {}
    for message in _window(messages):
        p: Any
        for p in message.parts:
            if not _read_back(p):
                continue
            if _REVEAL is not None and isinstance(p, _REVEAL):
                state.found.update(dict.fromkeys(p.tools_added))
            elif _searched(p):
                legacy = (p.metadata or {}).get("discovered_tools") if isinstance(p.metadata, dict) else None
                names = _matches(p) or ([str(n) for n in legacy] if isinstance(legacy, list) else [])
                state.found.update(dict.fromkeys(names))
            elif _LOAD is not None and isinstance(p, _LOAD):
                state.loaded.update(dict.fromkeys(p.loaded))
            elif _LOAD_CALL is not None and isinstance(p, _LOAD_CALL):
                if (capability := p.capability_id) is not None:
                    calls[p.tool_call_id] = capability
            elif _LOADED is not None and isinstance(p, _LOADED) and p.tool_call_id in calls:
                state.loaded.pop(calls[p.tool_call_id], None)
                state.loaded[calls[p.tool_call_id]] = None
            elif _BASELINE is not None and isinstance(p, _BASELINE):
                # A new window states every block of the prefix again: only a loaded capability's
                # block it does not hold keeps its change.
                held = {getattr(b, "id", None) for b in p.instructions}
                state.baseline = p
                state.changes = {k: c for k, c in state.changes.items() if _loaded_block(k) and k not in held}
            elif _CHANGE is not None and isinstance(p, _CHANGE) and p.id is not None:
                state.changes.pop(p.id, None)
                state.changes[p.id] = p
    return state


def _searched(part: object) -> bool:
    """Whether `part` is a tool search's return (run here, or by the provider in its response)."""
    return isinstance(part, ToolReturnPart) and part.tool_name == SEARCH_TOOL or (
        _SEARCHED_NATIVE is not None and isinstance(part, _SEARCHED_NATIVE))


def state_return(part: object) -> bool:
    """Whether `part` is a tool search's or a capability load's return as pydantic-ai wrote it: a
    layer leaves it whole (pydantic-ai reads its content as its own)."""
    return isinstance(part, _TYPED_RETURNS)


def _read_back(part: object) -> bool:
    """Whether `part` is one pydantic-ai reads its state from."""
    return isinstance(part, _KINDS) or isinstance(part, ToolReturnPart) and part.tool_name == SEARCH_TOOL


def holds_state(messages: Sequence[ModelMessage]) -> bool:
    """Whether any message holds a part pydantic-ai reads its state from (none in most histories)."""
    return bool(_KINDS) and any(_read_back(p) for m in messages for p in m.parts)


def missing(before: State, after: State) -> list[Any]:
    """The parts that give `after` what `before` had: the loads, then the reveals (the order a load
    by code is recorded in), then the instructions' window and its changes, each its newest."""
    parts: list[Any] = []
    if _LOAD is not None and (loads := [c for c in before.loaded if c not in after.loaded]):
        parts.append(_LOAD(loaded=loads))
    if _REVEAL is not None and (names := [n for n in before.found if n not in after.found]):
        parts.append(_REVEAL(tools_added=names))
    if before.baseline is not None and after.baseline is not before.baseline:
        parts.append(before.baseline)  # every change in effect goes after it, the ones kept too
        parts.extend(before.changes.values())
    else:
        parts.extend(c for k, c in before.changes.items() if after.changes.get(k) is not c)
    return parts


def carried(before: Sequence[ModelMessage], after: Sequence[ModelMessage]) -> list[Any]:
    """The parts a compaction's message adds, placed where it stands in `after` (the new history
    without them), for pydantic-ai to read from the new history what it read from `before`."""
    if not holds_state(before):
        return []
    return missing(read(before), read(after))


def onto(message: ModelRequest, before: Sequence[ModelMessage], after: Sequence[ModelMessage]) -> ModelRequest:
    """A compaction's `message` (standing in `after`, the new history) with the parts `carried` gives."""
    parts = carried(before, after)
    return replace(message, parts=[*message.parts, *parts]) if parts else message


def _typed_returns_back(before: Sequence[ModelMessage], after: list[ModelMessage]) -> list[ModelMessage]:
    """`after` with each tool search's or capability load's return whose content a layer replaced
    (cleared, previewed) as it was: pydantic-ai reads the content as its own, and a text in its
    place is no search it can read (it fails on it)."""
    originals: dict[str, Any] = {p.tool_call_id: p for m in before if isinstance(m, ModelRequest)
                                 for p in m.parts if isinstance(p, ToolReturnPart) and isinstance(p, _TYPED_RETURNS)}
    if not originals:
        return after
    out = []
    for m in after:
        if isinstance(m, ModelRequest) and any(
                isinstance(p, ToolReturnPart) and (o := originals.get(p.tool_call_id)) is not None and p is not o
                for p in m.parts):
            m = replace(m, parts=[originals.get(p.tool_call_id, p) if isinstance(p, ToolReturnPart) else p
                                  for p in m.parts])
        out.append(m)
    return out


def kept(before: list[ModelMessage], after: list[ModelMessage]) -> list[ModelMessage]:
    """A view layer's output `after` (of `before`), with what pydantic-ai reads from `before` kept.

    The returns it replaced are put back as they were; what it folded away is said again on the
    request that stands for the fold (the newest message it made), else on the first request after
    the messages it dropped: where a layer's decision puts it each time, so the prefix stays the same
    from request to request, and after every kept part it could be older than.
    """
    if after is before or not holds_state(before):
        return after
    after = _typed_returns_back(before, after)
    parts = missing(read(before), read(after))
    if not parts:
        return after
    olds, news = {id(m) for m in before}, {id(m) for m in after}
    made = [j for j, m in enumerate(after) if id(m) not in olds]
    if made:
        start = made[-1]
    else:
        gone = [i for i, m in enumerate(before) if id(m) not in news]
        nxt = next((m for m in before[gone[-1] + 1:] if id(m) in news), None) if gone else None
        start = next(j for j, m in enumerate(after) if m is nxt) if nxt is not None else len(after) - 1
    at = next((j for j in range(max(start, 0), len(after)) if isinstance(after[j], ModelRequest)), None)
    if at is None:
        at = next((j for j in range(len(after) - 1, -1, -1) if isinstance(after[j], ModelRequest)), None)
    if at is None:
        return after
    target = after[at]
    assert isinstance(target, ModelRequest)
    return [*after[:at], replace(target, parts=[*target.parts, *parts]), *after[at + 1:]]
