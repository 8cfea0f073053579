"""What each view layer keeps out of the context now, for /status: each tool result under the
layer whose work the context shows of it, as /context counts them.

The pipeline measures a layer's saving on the view the layers before it left (`view_savings`):
a result spilled to a file and later folded into a collapse digest counts its spill under
"moved to files" and its preview under "folded into a digest", so /status said 'large tool
results moved to files 9,804' for six results while /context showed three previews, the other
three being inside the digest it also counted. The tokens add up either way; here a result an
earlier layer shrank and a later one took out (folded, snipped, cleared) counts whole under the
later one, so the rows name what the context shows and still add up to the same total.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import replace
from typing import Any

from pydantic_ai.messages import ModelMessage, ModelRequest, ModelResponse, ToolCallPart, ToolReturnPart

from ...context.layers.microcompact import CLEARED
from ...context.plumbing import tokens
from ...context.plumbing.events import LAYER_NAMES
from ...context.plumbing.markers import KEY

BUDGET, SNIP, MICROCOMPACT, COLLAPSE = LAYER_NAMES


def kept_out(history: Sequence[ModelMessage], view: Sequence[ModelMessage], savings: Mapping[str, int],
             layers: Iterable[Any]) -> dict[str, int]:
    """`savings` (the pipeline's `view_savings` for `view`, shaped from `history`), each tool result
    moved to the layer that shows it now: the spill of a result folded, snipped or cleared since
    goes to the layer that did, and the clearing of one folded since to the collapse."""
    out = dict(savings)
    by_name = {getattr(layer, "name", ""): layer for layer in layers}
    spilled: Mapping[str, str] = getattr(by_name.get(BUDGET), "replacements", {})
    args_cut: Mapping[str, Any] = getattr(by_name.get(BUDGET), "args_cut", {})
    cleared: Mapping[str, str] = getattr(by_name.get(MICROCOMPACT), "cleared", {})
    folded = {i for c in getattr(by_name.get(COLLAPSE), "commits", ()) for i in c.ids}
    shown = {p.tool_call_id: p for m in view if isinstance(m, ModelRequest) for p in m.parts
             if isinstance(p, ToolReturnPart)}
    calls = {p.tool_call_id for m in view if isinstance(m, ModelResponse) for p in m.parts
             if isinstance(p, ToolCallPart)}

    def move(source: str, target: str, n: int) -> None:
        if n > 0 and source in out:
            out[source] -= n
            out[target] = out.get(target, 0) + n

    for m in history:
        for p in m.parts:
            if isinstance(p, ToolCallPart) and p.tool_call_id in args_cut and p.tool_call_id not in calls:
                cut = replace(p, args=args_cut[p.tool_call_id])
                move(BUDGET, COLLAPSE if p.tool_call_id in folded else SNIP,
                     tokens.part_tokens(p) - tokens.part_tokens(cut))
            if not isinstance(p, ToolReturnPart):
                continue
            call_id, now = p.tool_call_id, shown.get(p.tool_call_id)
            later = (COLLAPSE if call_id in folded else SNIP) if now is None else _marked_last(now)
            preview = replace(p, content=spilled[call_id]) if call_id in spilled else p  # type: ignore[arg-type]  # a preview is text
            if call_id in spilled and later is not None:
                move(BUDGET, later, tokens.part_tokens(p) - tokens.part_tokens(preview))
            # Microcompact runs before the collapse and after snip: only a fold takes over its clearing.
            if call_id in cleared and now is None and later == COLLAPSE:
                move(MICROCOMPACT, COLLAPSE,
                     tokens.part_tokens(preview) - tokens.part_tokens(replace(p, content=CLEARED)))  # type: ignore[arg-type]
    return out


def _marked_last(part: ToolReturnPart) -> str | None:
    """The later layer (after the budget) whose mark a result shown now carries, if any."""
    meta = part.metadata.get(KEY) if isinstance(part.metadata, dict) else None
    if not isinstance(meta, dict):
        return None
    return MICROCOMPACT if MICROCOMPACT in meta else SNIP if SNIP in meta else None
