"""Structure of a conversation: tool call/return pairs, API rounds and safe cut points.

Every layer that drops or keeps a slice of history must not separate a tool call from its result,
or the provider rejects the request. pydantic-ai keeps all parts of one response in one
`ModelResponse`, so "parts of one response" can only be split by cutting inside a message, which
nothing here does. A cut index `i` (keep `messages[i:]`, drop or summarise `messages[:i]`) is safe
when no call/return pair straddles it and the kept part starts a valid conversation.
"""

from __future__ import annotations

from collections.abc import Sequence

from pydantic_ai.messages import (
    ModelMessage,
    ModelRequest,
    ModelResponse,
    RetryPromptPart,
    ToolCallPart,
    ToolReturnPart,
    UserPromptPart,
)


def call_ids(message: ModelMessage) -> list[str]:
    if isinstance(message, ModelResponse):
        return [p.tool_call_id for p in message.parts if isinstance(p, ToolCallPart)]
    return []


def return_ids(message: ModelMessage) -> list[str]:
    if isinstance(message, ModelRequest):
        return [
            p.tool_call_id
            for p in message.parts
            if isinstance(p, ToolReturnPart) or (isinstance(p, RetryPromptPart) and p.tool_name)
        ]
    return []


def has_user_text(message: ModelMessage) -> bool:
    return isinstance(message, ModelRequest) and any(isinstance(p, UserPromptPart) for p in message.parts)


def safe_cuts(messages: Sequence[ModelMessage]) -> list[bool]:
    """`safe[i]` is True when keeping `messages[i:]` separates no call from its result.

    `safe` has len(messages)+1 entries; cutting at 0 or at the end is always safe.
    """
    n = len(messages)
    open_calls: set[str] = set()
    safe = [True] * (n + 1)
    for i, m in enumerate(messages):
        safe[i] = not open_calls and not (isinstance(m, ModelRequest) and return_ids(m))
        open_calls.update(call_ids(m))
        open_calls.difference_update(return_ids(m))
    safe[n] = True
    return safe


def adjust_cut_backward(messages: Sequence[ModelMessage], index: int) -> int:
    """Move a cut earlier until it is safe (keeping more), never below 0."""
    safe = safe_cuts(messages)
    i = max(0, min(index, len(messages)))
    while i > 0 and not safe[i]:
        i -= 1
    return i


def adjust_cut_forward(messages: Sequence[ModelMessage], index: int) -> int:
    """Move a cut later until it is safe (dropping more), at most to the end."""
    safe = safe_cuts(messages)
    i = max(0, min(index, len(messages)))
    while i < len(messages) and not safe[i]:
        i += 1
    return i


def api_rounds(messages: Sequence[ModelMessage]) -> list[tuple[int, int]]:
    """Half-open index ranges, one per API round.

    A round is one model response and what was sent back after it (tool results, or the next user
    prompt), as the reference design groups by assistant message. A long tool loop inside one user
    turn is therefore many rounds, which is what lets summary retries drop the oldest rounds and
    collapse commit old ones. Every range starts at a safe cut; messages before the first response
    (the opening user prompt) belong to the first round.
    """
    safe = safe_cuts(messages)
    starts = [i for i, m in enumerate(messages) if isinstance(m, ModelResponse) and safe[i] and i > 0]
    bounds = [0, *starts, len(messages)]
    return [(a, b) for a, b in zip(bounds, bounds[1:], strict=False) if b > a]


def unpaired(messages: Sequence[ModelMessage]) -> tuple[set[str], set[str]]:
    """(calls without a result, results without a call); both empty for a valid conversation."""
    calls: set[str] = set()
    returns: set[str] = set()
    for m in messages:
        calls.update(call_ids(m))
        returns.update(return_ids(m))
    return calls - returns, returns - calls


def distinct_call_ids(messages: Sequence[ModelMessage]) -> int:
    """Give each tool call whose id an earlier call of `messages` already has an id of its own,
    `<id>_2` (the next one free), in place, and the same to its results in the request after it.

    A provider may reuse ids from one response to the next (pydantic-ai's `TestModel` gives every
    call of a tool the same id, retried or called again after a compaction; a `FunctionModel` or a
    server may do the same), while every layer, the compaction and the pairing above tell results
    apart by id: a later result was sent as the preview of an earlier one, and a compaction could
    not tell which call a result answers. The first call with an id keeps it, so the decisions frozen for it still apply, and the
    names are the same for the same history (a restart renames as the run did). A call the history
    still waits on (its last response's, no result yet) keeps its id, as deferred results are given
    by it: an earlier call with that id is the one named apart. Returns how many were renamed.
    """
    last = messages[-1] if messages else None
    seen = set(call_ids(last)) if isinstance(last, ModelResponse) else set()  # waiting: kept as they are
    taken: set[str] | None = None  # every id of the history, once one is renamed
    renamed = 0
    for i, message in enumerate(messages):
        after = messages[i + 1] if i + 1 < len(messages) else None
        claimed: set[int] = set()  # results already paired with an earlier call of this response
        for part in message.parts if isinstance(message, ModelResponse) else ():
            if not isinstance(part, ToolCallPart):
                continue
            old = part.tool_call_id
            # its result: the first one with its id not yet paired (two calls of one response may
            # share an id too: the n-th call has the n-th result)
            result = next((p for p in after.parts if isinstance(p, ToolReturnPart | RetryPromptPart)
                           and p.tool_call_id == old and id(p) not in claimed), None) \
                if isinstance(after, ModelRequest) else None
            if result is None:
                continue  # waiting (already in `seen`), or answered nowhere: nothing to name apart
            claimed.add(id(result))
            if old not in seen:
                seen.add(old)
                continue
            if taken is None:
                taken = {x for m in messages for x in (*call_ids(m), *return_ids(m))}
            k = 2
            while f"{old}_{k}" in taken:
                k += 1
            part.tool_call_id = result.tool_call_id = new = f"{old}_{k}"
            taken.add(new)
            seen.add(new)
            renamed += 1
    return renamed
