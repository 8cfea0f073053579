"""A loaded history as a provider accepts it: every tool call answered, every result a call's.

A crash between saving a tool call and its result, or a hand-edited file, leaves calls without
results or results without calls; the next request would be rejected. `_runnable` repairs such a
history (and leaves an intact one untouched, so the prompt-cache prefix holds across a reload);
`_broken_pairs` is the check. `handed_back` gives a history the shape pydantic-ai gives it back in,
so that every process numbers its messages alike.

A tool call the model named so that no provider takes the name back (empty, or more than letters,
digits, `_` and `-`, at most 64: the rule OpenAI and Anthropic hold a tool's name to) is kept and
sent under `UNSENDABLE`, its result with it: sent as it came, every later request of the session was
refused. The model is told, as of any tool the agent does not have; a session saved with such a
call loads with it renamed (`sendable_names`).
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Sequence
from typing import Any

from pydantic_ai.messages import (
    ModelMessage,
    ModelRequest,
    ModelResponse,
    RetryPromptPart,
    ToolCallPart,
    ToolReturnPart,
    repair_messages,
)

from ..context.plumbing.markers import is_compaction_message, joined_metadata
from ..context.plumbing.rounds import call_ids, return_ids
from ..words import plural

#: The name a tool call is kept and sent under when a provider would refuse the model's own.
UNSENDABLE = "invalid_tool_name"
_SENDABLE = re.compile(r"[A-Za-z0-9_-]{1,64}")


def renamed_calls(response: ModelResponse) -> dict[str, str]:
    """Rename, in `response` itself, each tool call whose name no provider takes to `UNSENDABLE`;
    the calls renamed, each id with the name the model gave."""
    renamed: dict[str, str] = {}
    parts = list(response.parts)
    for i, part in enumerate(parts):
        if isinstance(part, ToolCallPart) and not _SENDABLE.fullmatch(part.tool_name):
            renamed[part.tool_call_id] = part.tool_name
            parts[i] = _renamed(part)
    if renamed:
        response.parts = parts
    return renamed


def sendable_names(messages: list[ModelMessage]) -> list[ModelMessage]:
    """`messages` (changed in place) with each call a provider would refuse by its name, and the
    result that answers it, under `UNSENDABLE` (see the module's docstring)."""
    renamed: dict[str, str] = {}
    for m in messages:
        if isinstance(m, ModelResponse):
            renamed |= renamed_calls(m)
        elif renamed and any(_answers(p, renamed) for p in m.parts):
            m.parts = [_renamed(p) if _answers(p, renamed) else p for p in m.parts]
    return messages


def _renamed(part: Any) -> Any:
    """A call or its result under `UNSENDABLE` (a copy: the part the model gave is left as it came)."""
    return dataclasses.replace(part, tool_name=UNSENDABLE)


def _answers(part: object, renamed: dict[str, str]) -> bool:
    """Whether `part` is the result of a call `renamed` names, under the name the model gave it."""
    return isinstance(part, ToolReturnPart | RetryPromptPart) and renamed.get(part.tool_call_id) == part.tool_name


def _runnable(messages: list[ModelMessage]) -> tuple[list[ModelMessage], str]:
    """The history as a provider accepts it, and what was changed ('' when nothing).

    A crash between saving a tool call and its result, or a hand-edited file, leaves calls without
    results or results without calls; the next request would be rejected (and `Agent.run` refuses a
    history ending in unanswered calls). Results that answer no call open at their place are
    dropped, then pydantic-ai's own repair (deterministic, idempotent) closes calls left open
    with a synthesized result and merges what became adjacent. A history whose pairs are intact
    is returned untouched — two user prompts in a row after a failed turn are normal — so the
    prompt-cache prefix does not change on reload.
    """
    if not messages or not _broken_pairs(messages):
        return messages, ""
    # A reply with nothing in it (a model that answered empty, asked again and again) is no damage:
    # left out without a word, where a note about lost tool results would be untrue on every load.
    note = _damage([m for m in messages if m.parts])
    try:
        fixed = repair_messages(_drop_misplaced_results(messages))
    except Exception:  # noqa: BLE001 - fall back to the longest intact beginning below
        fixed = messages
    if not _broken_pairs(fixed):
        return fixed, note
    keep = len(fixed)
    while keep and _broken_pairs(fixed[:keep]):
        keep -= 1
    return fixed[:keep], f"dropped {plural(len(fixed) - keep, 'message')} after a tool call/result mix-up"


def _damage(messages: list[ModelMessage]) -> str:
    """What repairing `messages` does, in words ('' when their pairs are intact): results answering
    no call (their call lost) are left out, calls left without a result are closed."""
    if not _broken_pairs(messages):
        return ""
    kept = _drop_misplaced_results(messages)
    dropped = sum(len(return_ids(m)) for m in messages) - sum(len(return_ids(m)) for m in kept)
    done = ["closed tool calls whose results were lost"] if _broken_pairs(kept) or not dropped else []
    if dropped:
        done.append(f"left out {plural(dropped, 'tool result')} whose call{'' if dropped == 1 else 's'} "
                    f"{'was' if dropped == 1 else 'were'} lost")
    return f"{' and '.join(done)} (a crash or an edit); the conversation goes on"


def handed_back(messages: list[ModelMessage]) -> list[ModelMessage]:
    """`messages` as pydantic-ai hands them back from the next run they are given to: adjacent
    requests joined into one (a file attached with `@`, sent as a read_file call and its results
    before the prompt's request; a hook's context), as every request sends them already. The numbers
    `/history` shows and `/compact --from N` takes are positions in the history: the process that
    ran such a turn, the same process after its next turn, and a session resumed from the file (which
    keeps the requests as they were saved) number them alike. Requests after the last answer stay
    apart: a turn that ended unanswered is retried or closed by what they are (unfinished.py).
    Deterministic and idempotent, the messages not joined the same objects; answers stay as they are."""
    end = next((i + 1 for i in range(len(messages) - 1, -1, -1) if isinstance(messages[i], ModelResponse)), 0)
    out: list[ModelMessage] = []
    i = 0
    while i < end:
        j = i
        while j < end and isinstance(messages[j], ModelRequest):
            j += 1
        if j - i < 2:
            out.append(messages[i])
            i += 1
            continue
        # Joined by pydantic-ai's own repair, with the answer before them whose calls they answer.
        before = out[-1:] if out and isinstance(out[-1], ModelResponse) else []
        try:
            joined = repair_messages([*before, *messages[i:j]], repair_last_response=False)
        except Exception:  # noqa: BLE001 - left as they are: pydantic-ai joins them at the next run
            joined = [*before, *messages[i:j]]
        if (len(joined) == len(before) + 1 and isinstance(joined[-1], ModelRequest)
                and any(is_compaction_message(m) for m in messages[i:j])):
            # What a compaction message carries (the user's messages, the ledger), which the join
            # dropped. A compaction joins its own message with the requests after it (cuts.join):
            # these are apart only in a file written otherwise.
            joined[-1] = dataclasses.replace(joined[-1], metadata=joined_metadata(messages[i:j]))
        out[len(out) - len(before):] = joined
        i = j
    return [*out, *messages[end:]] if end else messages


def _drop_misplaced_results(messages: Sequence[ModelMessage]) -> list[ModelMessage]:
    """Without tool results that answer no call open at their place (orphans, or moved before
    their call); requests left empty go too."""
    out: list[ModelMessage] = []
    open_calls: set[str] = set()
    for m in messages:
        if isinstance(m, ModelResponse):
            open_calls = {p.tool_call_id for p in m.parts if isinstance(p, ToolCallPart)}
            if m.parts:
                out.append(m)
            continue
        parts = []
        for p in m.parts:
            if isinstance(p, ToolReturnPart) or (isinstance(p, RetryPromptPart) and p.tool_name):
                if p.tool_call_id not in open_calls:
                    continue
                open_calls.discard(p.tool_call_id)
            parts.append(p)
        if parts:
            out.append(dataclasses.replace(m, parts=parts) if len(parts) != len(m.parts) else m)
    return out


def _broken_pairs(messages: Sequence[ModelMessage]) -> bool:
    """True if a tool call is not answered before the next response, or a result answers no open call."""
    open_calls: set[str] = set()
    for m in messages:
        if not m.parts:
            return True
        if isinstance(m, ModelResponse):
            if open_calls:
                return True
            open_calls = set(call_ids(m))
            continue
        for cid in return_ids(m):
            if cid not in open_calls:
                return True
            open_calls.discard(cid)
    return bool(open_calls)
