"""How a count is written in what the user reads: `1 message`, `2 messages`, `3 matches`; and a
value the user gave, quoted as written (`quoted`: `'it's'`, never Python's `"it's"`); a wait (`wait_words`).

The session's load warnings, the agent's tool-result lines and the UI all count things; this sits
below all of them, so session/ need not import the agent's streaming code for one word (the agent's
tools import the store: that was a circle). The analyzer has its own (replay/_words.py), with
thousands separators for its tables."""

from __future__ import annotations


def plural(n: int, word: str, *, grouped: bool = False) -> str:
    """`n` and `word`, with `es` after ch, sh, s, x or z and `s` after anything else, unless `n` is 1;
    `grouped`: `n` with thousands separators (`1,024 bytes`), for sizes and token counts."""
    count = f"{n:,}" if grouped else f"{n}"
    if n == 1:
        return f"{count} {word}"
    return f"{count} {word}es" if word.endswith(("ch", "sh", "s", "x", "z")) else f"{count} {word}s"


def quoted(text: str) -> str:
    """`text` between single quotes as the user wrote it, for a line that names what was given:
    `'it's'`, `'a\\b'`. Python's form of it (`repr`) switched to double quotes around a quote and
    doubled each backslash (`"it's"`, `'a\\\\b'`), text the user never wrote. A line break is shown
    as `\\n`, so the line stays one line; the other controls are shown by what prints the line
    (ui/visible.py)."""
    return "'" + text.replace("\n", "\\n") + "'"


def wait_words(seconds: float) -> str:
    """`45 seconds`, `1 minute`, `32 minutes`: a wait as the user reads it, rounded up."""
    whole = max(1, -int(-seconds // 1))
    return plural(whole, "second") if whole < 60 else plural(-(-whole // 60), "minute")
