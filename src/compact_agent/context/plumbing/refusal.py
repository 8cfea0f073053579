"""What a request that cannot be brought under the window is refused with: what does not fit.

The last resort (decisions/fit.py) leaves only what it cannot shrink further: the instructions
and tool definitions, every tool result cut to a short preview of a fixed size, the newest round
and the first message's first words. Blaming the instructions for all of it sent a user with a
500-token window and 40 tokens of instructions off to shorten them; the message names the part
that takes the most, and says what makes that part smaller. The messages are told apart by who
wrote them: "send a shorter prompt" was said of a note the newest steps were folded into, which
the user never typed, and "what the user typed" counted the digests collapsed rounds left.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from pydantic_ai.messages import (
    ModelMessage,
    ModelRequest,
    ModelResponse,
    SystemPromptPart,
    ToolReturnPart,
    UserPromptPart,
)

from . import markers, tokens

__all__ = ["window_refusal"]

LARGER = "pass a larger window= to ContextManager"


def window_refusal(view: Sequence[ModelMessage], *, size: int, window: int, fixed: int,
                   scale: Callable[[int], int], answer: int = 0) -> str:
    """One line: the request's `size` against `window`, split into the instructions and tool
    definitions (`fixed`, calibrated), the tool results left in `view` (as previews) and the rest
    of the messages, with what to do about the largest. `scale` calibrates an estimate. `answer`:
    the `max_tokens` the request asks for, which the window holds with the request."""
    if answer:
        room = (f"context window is {window:,} less the {answer:,} its max_tokens asks for the answer "
                f"({max(0, window - answer):,})")
        window = max(0, window - answer)
        fewer = ", or ask for a shorter answer (max_tokens)"
    else:
        room, fewer = f"context window is {window:,}", ""
    if fixed >= window:
        return (f"this request needs {fixed:,} tokens for its instructions and tool definitions alone, but the "
                f"{room}: send shorter instructions or fewer tools, or {LARGER}{fewer}")
    results = [p for m in view if isinstance(m, ModelRequest) for p in m.parts if isinstance(p, ToolReturnPart)]
    in_results = min(max(0, size - fixed), scale(sum(tokens.part_tokens(p) for p in results)))
    shares = [
        (in_results, f"{len(results)} tool result{'s' if len(results) != 1 else ''} cut to previews of a fixed size",
         f"{LARGER}, or a smaller CompactionSettings(tool_result_preview_chars=...)"),
        *_messages(view, max(0, size - fixed - in_results)),
        (fixed, "the instructions and tool definitions", f"{LARGER}, or send shorter instructions or fewer tools"),
    ]
    shares.sort(key=lambda s: -s[0])
    parts = ", ".join(f"{n:,} for {text}" for n, text, _ in shares if n > 0)
    return (f"this request needs {size:,} tokens even shrunk as far as it goes, but the {room} ({parts}): "
            f"{shares[0][2]}{fewer}")


#: The rest of the request by who wrote it, each with what makes it smaller.
_KINDS = {
    "typed": ("what the user typed", f"{LARGER}, or send a shorter prompt"),
    "system": ("the system prompt", f"{LARGER}, or give the agent a shorter system prompt"),
    "folded": ("the note the newest steps were folded into", LARGER),
    "digest": ("the digests earlier steps were collapsed into", LARGER),
    "ours": ("the notes standing in for what was left out", LARGER),
    "model": ("the model's newest reply and its tool calls", LARGER),
}


def _kind(message: ModelMessage, part: object) -> str:
    if isinstance(message, ModelResponse):
        return "model"
    if isinstance(part, SystemPromptPart):
        return "system"
    text = part.content if isinstance(part, UserPromptPart) and isinstance(part.content, str) else None
    if text is not None and text.startswith(markers.FOLDED):
        return "folded"
    if text is not None and text.startswith(markers.DIGEST_HEADER):
        return "digest"
    if text is None or text.startswith(markers.OWN_TEXT) or markers.is_compaction_message(message):
        return "ours"  # a summary, a line saying what was left out, a retry prompt
    return "typed"


def _messages(view: Sequence[ModelMessage], rest: int) -> list[tuple[int, str, str]]:
    """`rest` (the request less its instructions, tool definitions and tool results) split by
    who wrote each part, in proportion to its estimate."""
    estimates = dict.fromkeys(_KINDS, 0)
    for m in view:
        for p in m.parts:
            if not isinstance(p, ToolReturnPart):
                estimates[_kind(m, p)] += tokens.part_tokens(p)
    total = sum(estimates.values())
    if not total:
        return [(rest, "the messages", LARGER)]
    split = {kind: rest * n // total for kind, n in estimates.items()}
    split[max(estimates, key=lambda kind: estimates[kind])] += rest - sum(split.values())  # what rounding left
    return [(split[kind], *_KINDS[kind]) for kind in _KINDS]
