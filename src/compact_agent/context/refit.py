"""The newest prompt, cut by the caller's own rule to a window learned from a refusal.

A caller may cut input that is too large for a request before it sends it (the terminal agent
saves it beside the session and sends its two ends and where it is). It can only do that for the
window it knows: a server whose window is smaller says so by refusing the request. Left to the
reactive compaction, the message the user just sent was folded into a record of its first few
hundred characters, and the model never saw the question at its end. So when a refusal teaches a
smaller window, the caller's `refit_prompt` (wired in through `Internals`) is asked first, with the
text of the newest prompt and the new compaction threshold; what it returns replaces that text and
the request is sent again, as the caller would have sent it had it known the window.

The library writes nothing itself: where the rest goes is the caller's. The replaced message is a
new object in the run's history, so the next request's `persist` archives what the store held
(the message as it came) and rewrites it with the message as sent (contract.StoreSync), under a
boundary that says so (`INPUT_CUT`, `cut_boundary`): not a compaction, nor an edited history.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Sequence
from typing import Any

from pydantic_ai.messages import ModelMessage, ModelRequest, UserPromptPart

from .plumbing.events import Event, one_line
from .plumbing.markers import users_request
from .wiring import RefitPrompt

#: The trigger of the store's rewrite that puts the cut prompt in place of the message as it came.
INPUT_CUT = "input_cut"


def cut_boundary(window: int) -> dict[str, Any]:
    """What the boundary of that rewrite says instead of an edited history's ('history_changed'):
    the prompt was cut to fit `window` (its archive holds the message as it came)."""
    return {"trigger": INPUT_CUT, "extra": {"window": window}}


def newest_prompt(messages: Sequence[ModelMessage]) -> tuple[int, int] | None:
    """(message, part) of the newest text the user sent: in the newest request of their own words
    (not one of our context messages, which carry metadata), its last text part. None when that
    request has none (an image alone): an older message is not this turn's."""
    for i in range(len(messages) - 1, -1, -1):
        m = messages[i]
        if users_request(m):
            texts = [j for j, p in enumerate(m.parts) if isinstance(p, UserPromptPart) and isinstance(p.content, str)]
            return (i, texts[-1]) if texts else None
    return None


def refit_newest(hook: RefitPrompt | None, threshold: int, messages: list[ModelMessage],
                 emit: Callable[[Event], None]) -> bool:
    """Ask `hook` for the newest prompt at `threshold`; replace it in `messages` (in place) when
    it answers with other text. Whether it did."""
    found = newest_prompt(messages) if hook is not None else None
    if hook is None or found is None:
        return False
    i, j = found
    request = messages[i]
    assert isinstance(request, ModelRequest)
    part = request.parts[j]
    assert isinstance(part, UserPromptPart) and isinstance(part.content, str)
    try:
        text = hook(part.content, threshold)
    except Exception as e:  # noqa: BLE001 - the caller's code: its failure leaves the reactive compaction
        emit(Event("hook", "failed", trigger="reactive", detail={"error": one_line(e)}))
        return False
    if text is None or text == part.content:
        return False
    parts = list(request.parts)
    parts[j] = dataclasses.replace(part, content=text)
    messages[i] = dataclasses.replace(request, parts=parts)
    return True
