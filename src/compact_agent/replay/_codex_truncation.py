"""What Codex sent the model of a long tool output.

Since Codex began recording the turn's truncation policy in each ``turn_context`` line
(``truncation_policy: {mode: tokens|bytes, limit: N}``), it keeps tool outputs whole in the rollout
but cuts them when it puts them in the model's history: the output of a function, custom tool or
local shell call longer than the policy's limit plus 20% (rounded up) keeps its beginning and its
end, half the budget each, joined by a marker saying how much was cut. A token is counted as 4 bytes
of UTF-8. Structured outputs spend one budget over their text items in order: the item that
overflows it is cut the same way, later ones are dropped and counted in a closing item. Images pass.

The importer replays outputs as the model read them; a rollout whose ``turn_context`` names no
policy (older releases cut outputs before recording them) is replayed as recorded.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping
from typing import Any, NamedTuple

from ._common import counted, text_of_blocks


class Budget(NamedTuple):
    mode: str  # "tokens" or "bytes"
    limit: int  # in those units, the 20% allowance included
    recorded: int  # the policy's limit as the rollout records it

_BYTES_PER_TOKEN = 4
_TEXT_ITEMS = frozenset({"input_text", "output_text", "text"})


def output_budget(policy: Any) -> Budget | None:
    """The budget a turn's truncation policy gives each tool output in the history, or None."""
    if not isinstance(policy, Mapping):
        return None
    mode, limit = policy.get("mode"), policy.get("limit")
    if mode not in {"tokens", "bytes"} or not isinstance(limit, int) or isinstance(limit, bool) or limit < 0:
        return None
    return Budget(str(mode), math.ceil(limit * 1.2), limit)


def cut_note(n: int, budget: Budget) -> str:
    """The outputs cut, in a user's words, with the policy as the rollout records it."""
    its = "its" if n == 1 else "their"
    return (f"left out the middle of {counted(n, 'tool output')} longer than Codex's limit ({budget.recorded:,} "
            f"{budget.mode} and 20%): the model read only {its} beginning and end, and so does the replay")


def output_as_read(output: Any, expand: Callable[[str], str], budget: Budget | None, text_keys: tuple[str, ...]
                   ) -> tuple[str, bool]:
    """A tool output's text as the model read it (redaction markers expanded first), and whether
    Codex cut it."""
    if budget is None:
        return expand(output if isinstance(output, str) else text_of_blocks(output, text_keys=text_keys)), False
    if isinstance(output, list):
        items = [{**b, "text": expand(b["text"])} if isinstance(b, Mapping) and isinstance(b.get("text"), str) else b
                 for b in output]
        kept = truncated_items(items, budget)
        return text_of_blocks(kept, text_keys=text_keys), kept != items
    text = expand(output if isinstance(output, str) else text_of_blocks(output, text_keys=text_keys))
    cut = truncated(text, budget)
    return cut, cut != text


def truncated(text: str, budget: Budget) -> str:
    """`text` as the model saw it: whole within the budget, else its beginning and end."""
    mode, limit, _ = budget
    data = text.encode()
    max_bytes = limit * _BYTES_PER_TOKEN if mode == "tokens" else limit
    if not text or len(data) <= max_bytes:
        return text
    left = max_bytes // 2
    tail_from = len(data) - (max_bytes - left)
    prefix_end, suffix_start, removed_chars, offset = 0, len(data), 0, 0
    for char in text:
        start, offset = offset, offset + len(char.encode())
        if offset <= left:
            prefix_end = offset
        elif start >= tail_from:
            suffix_start = min(suffix_start, start)
        else:
            removed_chars += 1
    suffix_start = max(suffix_start, prefix_end)
    if mode == "tokens":
        marker = f"…{-(-(len(data) - max_bytes) // _BYTES_PER_TOKEN)} tokens truncated…"
    else:
        marker = f"…{removed_chars} chars truncated…"
    return data[:prefix_end].decode() + marker + data[suffix_start:].decode()


def truncated_items(items: list[Any], budget: Budget) -> list[Any]:
    """A structured output's items as the model saw them: one budget spent over the text items."""
    mode, remaining, recorded = budget
    out: list[Any] = []
    omitted = 0
    for item in items:
        text = item.get("text") if isinstance(item, Mapping) and item.get("type") in _TEXT_ITEMS else None
        if not isinstance(text, str):
            out.append(item)
            continue
        if not text:
            continue
        if remaining == 0:
            omitted += 1
            continue
        size = len(text.encode())
        cost = -(-size // _BYTES_PER_TOKEN) if mode == "tokens" else size
        if cost <= remaining:
            out.append(item)
            remaining -= cost
            continue
        snippet = truncated(text, Budget(mode, remaining, recorded))
        if snippet:
            out.append({**item, "text": snippet})
        else:
            omitted += 1
        remaining = 0
    if omitted:
        out.append({"type": "input_text", "text": f"[omitted {omitted} text items ...]"})
    return out
