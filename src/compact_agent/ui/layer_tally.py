"""The view layers' savings of a turn, said as one line per kind instead of one per decision.

A layer decides before every request of a turn, so a model that reads files again, one request at a
time (after a compaction put back the files read before it, or to check its edits), had each
earlier read left out by its own decision, and the REPL said each:
`context: old rounds snipped (1 result), freed 2,781 tokens` four times in one turn. The REPL's
feed (session_feed.py) tallies them here and says the tally once: earlier reads of files read
again as `context: re-read 4 files (a.py, b.py, c.py, d.py), their earlier reads left out, freed
11,124 tokens`, every other layer as its line does (render.layer_line), with the turn's figures.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from . import render

if TYPE_CHECKING:
    from ..context.plumbing.events import Event

REREAD = "reread"  # snip's `superseded_read`: an earlier read of a file read again, unchanged
SHRINK = "shrink"  # the last resort's (fit.py, under L1's name): said by what it left out, not as L1
NAMED = 4  # files named in the line; more as `…`


@dataclass
class Tally:
    """One kind's decisions: the results they touched, the tokens freed, the files read again."""

    layer: str
    ids: list[str] = field(default_factory=list)
    freed: int = 0
    files: list[str] = field(default_factory=list)
    detail: dict[str, Any] = field(default_factory=dict)  # the last resort's counts, summed


class LayerTally:
    """What the layers freed since it was last said, by kind, in the order the kinds came."""

    def __init__(self) -> None:
        self.kinds: dict[tuple[str, str], Tally] = {}

    def add(self, ev: Event, messages: list[Any], cwd: Path | None = None) -> None:
        """Count `ev` (a layer's event with tokens freed). `messages`: the history it shaped, where
        the calls of the results it touched name their files."""
        kinds = ev.detail.get("kinds")
        reread = ev.layer == "snip" and isinstance(kinds, dict) and set(kinds) == {"superseded_read"}
        shrink = (ev.layer, ev.action) == ("budget", "shrink")
        t = self.kinds.setdefault((ev.layer, REREAD if reread else SHRINK if shrink else ""), Tally(ev.layer))
        t.ids.extend(i for i in ev.ids if i not in t.ids)
        t.freed += ev.tokens_freed
        if shrink:
            for key, value in (ev.detail or {}).items():
                if isinstance(value, bool):
                    t.detail[key] = bool(t.detail.get(key)) or value
                elif isinstance(value, int):
                    t.detail[key] = int(t.detail.get(key) or 0) + value
        if reread:
            for path in read_paths(messages, ev.ids, cwd):
                if path not in t.files:
                    t.files.append(path)

    def lines(self, window: int) -> list[str]:
        """The tally's lines, and a fresh start; a kind that freed under a hundredth of `window` in
        all is not news (render.layer_line)."""
        out = [line for (_, kind), t in self.kinds.items() if (line := said(t, kind, window)) is not None]
        self.kinds.clear()
        return out


def said(t: Tally, kind: str, window: int) -> str | None:
    if t.freed * 100 < window:
        return None
    if kind == REREAD and t.files:
        n = len(t.files)
        names = ", ".join(t.files[:NAMED]) + (", …" if n > NAMED else "")
        earlier = "their earlier reads" if n > 1 else "its earlier read" + ("s" if len(t.ids) > 1 else "")
        return f"context: re-read {n} file{'s' if n != 1 else ''} ({names}), {earlier} left out, freed {t.freed:,} tokens"
    from ..context.plumbing.events import Event

    return render.layer_line(Event(t.layer, SHRINK if kind == SHRINK else "tally", t.freed, 0, ids=t.ids,
                                   detail=t.detail), window)


def read_paths(messages: list[Any], ids: list[str], cwd: Path | None) -> list[str]:
    """The paths the tool calls `ids` read, as the user would type them (under `cwd`, relative)."""
    from ..context.compaction.ledger import call_args  # late: the REPL starts before pydantic-ai loads

    wanted, found = set(ids), []
    for m in messages:
        for p in getattr(m, "parts", ()):
            if getattr(p, "part_kind", "") == "tool-call" and p.tool_call_id in wanted:
                args = call_args(p)  # arguments the model wrote as no JSON object name no file
                path = args.get("path") if isinstance(args, dict) else None
                if isinstance(path, str) and path:
                    found.append(_shown(path, cwd))
    return found


def _shown(path: str, cwd: Path | None) -> str:
    return str(Path(path).relative_to(cwd)) if cwd is not None and Path(path).is_relative_to(cwd) else path
