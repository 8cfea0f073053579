"""How the analyzer writes a count: `1 transcript`, `2 transcripts`, `1,433 recorded requests`."""

from __future__ import annotations


def plural(n: int, word: str) -> str:
    """`n` with thousands separators and `word`, with an `s` unless `n` is 1."""
    return f"{n:,} {word}{'' if n == 1 else 's'}"
