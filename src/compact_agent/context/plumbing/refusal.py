"""What a request that cannot be brought under the window is refused with: what does not fit.

The last resort (decisions/fit.py) leaves only what it cannot shrink further: the instructions
and tool definitions, every tool result cut to a short preview of a fixed size, the newest round
and the first message's first words. Blaming the instructions for all of it sent a user with a
500-token window and 40 tokens of instructions off to shorten them; the message names the part
that takes the most, and says what makes that part smaller. The messages are told apart by who
wrote them: "send a shorter prompt" was said of a note the newest steps were folded into, which
the user never typed, and "what the user typed" counted the digests collapsed rounds left.

`fixed_refusal` is the case no compaction can help: the instructions and tool definitions, as the
provider counts them, leave no room for even a record of the conversation written without a model
(a server whose tokenizer counts four times our estimate refused the first request, and the run
ended saying only that the request was "too long … and could not be shrunk", after a line saying a
compaction had failed). It names both figures and what makes room; where the `max_tokens` asked for the
answer fills the window alone, it names that ("needs 0 tokens … send shorter instructions" was said).

`document_refusal` is the other: a document the user attached to the newest message that takes,
alone, more than the window holds. A compaction can leave out what came before, not the message the
model is asked about: a 22,000-token text file in a 16,000-token window had the history summarised,
the request still over the window, then folded with the document left out, and the model answered
without it.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from pydantic_ai.exceptions import ModelContextWindowExceededError
from pydantic_ai.messages import (
    ModelMessage,
    ModelRequest,
    ModelResponse,
    SystemPromptPart,
    ToolReturnPart,
    UserPromptPart,
)

from . import markers, tokens

__all__ = ["NoRoomForConversation", "document_refusal", "fixed_refusal", "window_refusal"]

LARGER = "pass a larger window= to ContextManager"
WINDOW_NAMED = "context window"  # what a line names the room as (request_limit.py names a run's limit instead)


class NoRoomForConversation(ModelContextWindowExceededError):
    """The provider refused a request as too long, and its instructions and tool definitions, as it
    counts them, leave the window no room for even a record of the conversation written without a
    model: no compaction is tried, and the message is `fixed_refusal`'s line. A provider's refusal
    still (caught as `ModelContextWindowExceededError`), with what no compaction can change said."""


def window_refusal(view: Sequence[ModelMessage], *, size: int, window: int, fixed: int,
                   scale: Callable[[int], int], answer: int = 0, margin: int = 0) -> str:
    """One line: the request's `size` against `window`, split into the instructions and tool
    definitions (`fixed`, calibrated), the tool results left in `view` (as previews) and the rest
    of the messages, with what to do about the largest. `scale` calibrates an estimate. `answer`:
    the `max_tokens` the request asks for, which the window holds with the request; `margin`: what
    is kept free for the estimate's error beside it (a request estimated at 268 tokens for a
    270-token window was sent, and counted 272)."""
    room, prompt_room, fewer = _room(window, answer, margin)
    if fixed >= prompt_room:
        return fixed_refusal(fixed, window, answer=answer)
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


def _room(window: int, answer: int, margin: int = 0) -> tuple[str, int, str]:
    """The window as a refusal names it, the room it leaves a prompt (less the `max_tokens` asked and
    the `margin` kept free for the estimate's error, both: `settings.sendable`), and what a shorter
    answer adds."""
    kept = [f"the {answer:,} its max_tokens asks for the answer"] if answer else []
    kept += [f"the {margin:,} kept free for the estimate's error"] if margin else []
    if not kept:
        return f"{WINDOW_NAMED} is {window:,}", window, ""
    room = max(0, window - answer - margin)
    return (f"{WINDOW_NAMED} is {window:,} less {' and '.join(kept)} ({room:,})", room,
            ", or ask for a shorter answer (max_tokens)" if answer else "")


def fixed_refusal(fixed: int, window: int, *, answer: int = 0, least: int = 0, counted: bool = False) -> str:
    """One line: the instructions and tool definitions (`fixed`, as the provider counts them) leave the
    `window` (less `answer`, the `max_tokens` asked) no room for `least`, the smallest a compacted
    conversation can be (a record written without a model, holding the first words of the user's
    newest message). `counted`: `fixed` is the provider's count, not our estimate (a tokenizer denser
    than characters/4), which the line says: the user's own count of the file would not show it."""
    if answer >= window:  # no request fits: "needs 0 tokens ... send shorter instructions" was said of it
        return (f"the {answer:,} tokens its max_tokens asks for the answer take the whole {WINDOW_NAMED} "
                f"({window:,}), leaving no room for any request: ask for a shorter answer (max_tokens below "
                f"{window:,}), or {LARGER}")
    room, prompt_room, fewer = _room(window, answer)
    about, how = ("about ", " (as the provider counts them)") if counted else ("", "")
    what = f"send shorter instructions or fewer tools, or {LARGER}{fewer}"
    if fixed >= prompt_room:
        return (f"this request needs {about}{fixed:,} tokens for its instructions and tool definitions alone{how}, "
                f"but the {room}: {what}")
    return (f"the instructions and tool definitions alone take {about}{fixed:,} tokens{how}, and the {room}: that "
            f"leaves no room for the conversation, not even for a record of it written without a model ({least:,} "
            f"tokens at the least): {what}")


def document_refusal(name: str, size: int, fixed: int, window: int, *, answer: int = 0, margin: int = 0) -> str:
    """One line: the document `name` (its media type, identifier and bytes), attached to the newest
    message, takes `size` tokens alone (calibrated), which with the instructions and tool definitions
    (`fixed`; 0: none named) the `window` (less `answer`, the `max_tokens` asked, and `margin`, what is
    kept free for the estimate's error) cannot hold, whatever a compaction leaves of the rest."""
    room, _, fewer = _room(window, answer, margin)
    more = f", and the instructions and tool definitions {fixed:,} more" if fixed else ""
    return (f"the document {name}, attached to the newest message, takes about {size:,} tokens alone{more}, but "
            f"the {room}: no compaction can make room for it: send a smaller document, or a part of it, or "
            f"{LARGER}{fewer}")


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
