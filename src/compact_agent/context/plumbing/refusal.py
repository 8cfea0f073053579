"""What a request that cannot be brought under the window is refused with: what does not fit.

The last resort (decisions/fit.py) leaves only what it cannot shrink further: the instructions
and tool definitions, every tool result cut to a short preview of a fixed size, the newest round
and the first message's first words. Blaming the instructions for all of it sent a user with a
500-token window and 40 tokens of instructions off to shorten them; the message names the part
that takes the most, and says what makes that part smaller.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from pydantic_ai.messages import ModelMessage, ModelRequest, ToolReturnPart

from . import tokens

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
    rest = max(0, size - fixed - in_results)
    shares = [
        (in_results, f"{in_results:,} for {len(results)} tool result{'s' if len(results) != 1 else ''} "
                     "cut to previews of a fixed size",
         f"{LARGER}, or a smaller CompactionSettings(tool_result_preview_chars=...)"),
        (rest, f"{rest:,} for the first message and the newest round",
         f"{LARGER}, or send a shorter prompt"),
        (fixed, f"{fixed:,} for the instructions and tool definitions",
         f"{LARGER}, or send shorter instructions or fewer tools"),
    ]
    shares.sort(key=lambda s: -s[0])
    parts = ", ".join(text for n, text, _ in shares if n > 0)
    return (f"this request needs {size:,} tokens even shrunk as far as it goes, but the {room} ({parts}): "
            f"{shares[0][2]}{fewer}")
