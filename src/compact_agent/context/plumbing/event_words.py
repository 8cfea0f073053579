"""An event as one line a person reads: what `str(event)` gives (events.py `Event.__str__`).

An `Event` is data for a program (its `layer`, `action`, sizes and `detail`); a program that logs
what the pipeline did printed the dataclass's fields, and its reader had to look each layer/action
pair up. `said` puts the same facts in one line: which layer did what and why (`trigger`), the
request's size before and after and what this decision freed, and for a failure its error and
whether automatic compaction is now paused (and when it is tried again):

    compact full (auto): 34,646 -> 31,586 tokens, 3,060 freed
    compact failed (auto): 12,400 tokens; the summary request failed: ...; automatic compaction paused, tried again in 60 s
"""

from __future__ import annotations

from typing import Any, Protocol


class _Told(Protocol):
    """What of an `Event` (events.py, which imports this module) the line is made of."""

    layer: str
    action: str
    tokens_before: int
    tokens_after: int
    trigger: str
    detail: dict[str, Any]

    @property
    def tokens_freed(self) -> int: ...
    @property
    def failed(self) -> bool: ...
    @property
    def error(self) -> str | None: ...


def said(event: _Told) -> str:
    """`event` in one line (module docstring)."""
    line = f"{event.layer} {event.action}" + (f" ({event.trigger})" if event.trigger else "")
    before, after = event.tokens_before, event.tokens_after
    if before or after:
        sizes = f"{before:,} tokens" if before == after else f"{before:,} -> {after:,} tokens"
        line += f": {sizes}" + (f", {freed:,} freed" if (freed := event.tokens_freed) else "")
    if event.failed:
        line += f"{';' if before or after else ':'} {event.error or 'no reason given'}"
        if event.detail.get("paused"):
            wait = event.detail.get("retry_in_s")
            line += "; automatic compaction paused" + (f", tried again in {wait:,.0f} s"
                                                       if isinstance(wait, int | float) else "")
    elif (reason := event.detail.get("reason")) and isinstance(reason, str):
        line += f" ({reason})"
    return " ".join(line.split())  # one line, whatever an error held
