"""What a provider's "prompt too long" answer tells: how big the refused prompt was, and the
window's real limit when it is below the one the conversation was given.

A server may hold a smaller window than the one it was introduced with (`--context-window 64k`
for a server started with 8K): its refusal is the only place that says so. The limit learned is
kept with the layers' decisions (the `learned` entry of the saved state) beside the window it
replaced, so a conversation resumed with that same window works within the server's from its first
request; one given another window (another model, another server) does not take it.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

_LIMIT_RE = re.compile(r"maximum context length is (\d[\d,]*) tokens", re.IGNORECASE)
_USED_RE = re.compile(r"resulted in (\d[\d,]*) tokens|prompt is too long: (\d[\d,]*) tokens", re.IGNORECASE)


def figures(text: str) -> tuple[int | None, int | None]:
    """(the tokens of the refused prompt, the window's limit), each None where `text` does not say."""
    used = _USED_RE.search(text)
    limit = _LIMIT_RE.search(text)
    return (int((used.group(1) or used.group(2)).replace(",", "")) if used else None,
            int(limit.group(1).replace(",", "")) if limit else None)


@dataclass(frozen=True)
class LearnedWindow:
    """The server's limit (`window`), learned from a refusal, below the window the conversation
    was `given`."""

    window: int
    given: int

    def to_json(self) -> list[int]:
        return [self.window, self.given]

    @classmethod
    def from_json(cls, value: Any) -> LearnedWindow | None:
        """The pair as saved; None for anything else (a file edited by hand, an older version's)."""
        if (isinstance(value, list) and len(value) == 2 and all(type(x) is int for x in value)
                and 0 < value[0] < value[1]):
            return cls(value[0], value[1])
        return None
