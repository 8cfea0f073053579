"""What our own session's layers 1-4 kept out of its requests, from its event log: the recorded usage
of each request is of what was sent, so the fit of its sizes (sizing.kept_out) takes it off the
history the replay holds.

Apart from _compact_agent.py, which rebuilds the conversation from the session file and its archives:
this reads the other file beside it (`<id>/events.jsonl`), and what the rebuild found undone
(`Undone`: the stretches a rewind went back over) decides which of its decisions still stand.
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Sequence
from datetime import datetime
from pathlib import Path
from typing import Any

from pydantic_ai.messages import ModelMessage, ModelResponse, ToolCallPart, ToolReturnPart

from ..session.event_log import EventLog
from ..session.orphans import ARCHIVES
from ._compact_agent import Archives, Undone, ViewEvent, utc

#: Layers 1-4 (docs/pipeline.md): they shape what one request sends, never the history the replay holds.
VIEW_LAYERS = frozenset({"budget", "snip", "microcompact", "collapse"})


def view_events(path: Path, messages: Sequence[ModelMessage], undone: Sequence[Undone] = ()
                ) -> list[ViewEvent] | None:
    """The view layers' decisions in the conversation `messages` of the session file `path`, and its
    compactions, in time order, from its event log (`<id>/events.jsonl` in its side folder); None
    without a log to read. A decision is frozen once made (a result moved to a file stays a preview):
    its saving (`freed`) holds for every later request until a compaction replaces the history, but
    for a view fitted to the window (`budget`/`shrink`), its request's alone. What was decided in a
    stretch a rewind undid (`undone`) is as `standing` says."""
    real = Path(os.path.realpath(path))
    folder = real.parent.parent if real.parent.name == ARCHIVES else real.parent
    logs = [folder / i for i in sorted(Archives.of(path).ids) if (folder / i / "events.jsonl").is_file()]
    try:  # read as a regular file only, an OSError else (session/lines.py): no log to go by
        read = EventLog(logs[0], str).read() if logs else None
    except OSError:
        read = None
    ours = {m.conversation_id for m in messages if isinstance(m, ModelResponse)} | {None}
    held = {p.tool_call_id for m in messages for p in m.parts if isinstance(p, (ToolCallPart, ToolReturnPart))}
    out = []
    for e in read if read is not None else []:
        freed, time, detail = e.get("freed"), e.get("time"), e.get("detail")
        if e.get("action") == "failed" or e.get("conversation_id") not in ours or not isinstance(time, str):
            continue
        if e.get("layer") == "compact" and isinstance(detail, dict) and isinstance(detail.get("archive"), str):
            freed, kind = 0, "reset"  # it rewrote the history, archived first
        elif e.get("layer") in VIEW_LAYERS and isinstance(freed, int) and not isinstance(freed, bool) and freed > 0:
            kind = "alone" if e.get("action") == "shrink" else "kept"
        else:
            continue
        with contextlib.suppress(ValueError):
            when = utc(datetime.fromisoformat(time))
            if any((after is None or when > after) and (until is None or when <= until) for after, until in undone):
                freed, kind = standing(e, freed, kind, held)
            if kind:
                out.append((when, freed, kind))
    return sorted(out, key=lambda e: e[0]) if read is not None else None


def standing(event: dict[str, Any], freed: int, kind: str, held: set[str]) -> tuple[int, str]:
    """What of `event`, decided in a stretch a rewind undid, still keeps something out of the requests
    after it, of the conversation whose tool calls are `held` (its saving and kind; (0, "") for nothing). The request a view
    fitted to the window was for is undone (`alone`); a compaction there was gone back over, which
    left the layers' decisions before it forgotten (layers/frozen.py) but is no compaction the replay
    lacks (`forget`); a snip there marked what a copy that came in the stretch made redundant, and
    its mark lapses with that copy (layers/snip.py); a decision on tool results stands for those the
    conversation still holds (the results it cleared, spilled or collapsed are gone with the stretch,
    an older one cleared there stays cleared), its saving shared evenly among the results it named.
    Counted as they stood, a session rewound after its reads were moved to files took their previews'
    savings off every request after the rewind, which never held those reads."""
    if kind == "reset":
        return 0, "forget"
    if kind == "alone" or event.get("layer") == "snip":
        return 0, ""
    ids = event.get("ids")
    named = [i for i in ids if isinstance(i, str)] if isinstance(ids, list) else []
    share = round(freed * sum(i in held for i in named) / len(named)) if named else 0
    return (share, kind) if share > 0 else (0, "")
