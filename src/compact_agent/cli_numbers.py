"""Numbers as people write them, read alike from the command line and from the settings: a number
of tokens (`32000`, `32,000`, `32k`, `1.5k`, `1M`) and a whole count (`--max-turns 5`).

A window is given as a flag, in the config file and in a variable, and a `/model` switch takes one
too; each reads it here, so `32k` means the same everywhere and a bad one is said in the same line
(pydantic's custom error, so a setting's error reads as the flag's). Apart from cli_help.py, which
words the command line's errors: config.py and the REPL read numbers without the command line.
"""

from __future__ import annotations

import re
from typing import Any

from pydantic_core import PydanticCustomError

from .setting_values import shown as in_words
from .words import quoted

MAX_WINDOW = 10_000_000  # tokens: no model has more (config.py bounds the setting alike)
# No smallest window here: the one that works depends on what every request carries (the system
# prompt with the instruction files, the tools, an MCP server's tools), so the session refuses a
# window too small for them, naming where it was given and the minimum it needs
# (agent/run/window_check.py). A bound of our own below that said a second, wrong minimum.

TOKENS_EXAMPLE = "such as 32000, 32k or 128K"
_TOKENS = re.compile(r"(?i)\s*([+-]?)\s*(\d{1,3}(?:[,_]\d{3})+|\d+(?:\.\d*)?|\.\d+)\s*([km]?)\s*")


def parse_tokens(value: object, *, least: int = 1, most: int | None = MAX_WINDOW) -> int:
    """A number of tokens as people write it: `32000`, `32,000`, `32_000`, `32k` / `32K` (32,000),
    `1.5k` (1,500), `1M` (1,000,000); the same forms on the command line and in a config file or
    variable. What is no whole number of tokens within [least, most] (`most` None: no upper bound)
    raises a ValueError (pydantic's custom error: its message is the line the user reads, with no
    `Value error,` before it)."""
    shown = _quoted(value)  # as the file or the command line wrote it, or its kind in words
    not_tokens = _bad(f"expected a whole number of tokens {TOKENS_EXAMPLE}, not {shown}")
    if isinstance(value, bool):
        raise not_tokens
    if isinstance(value, int):
        number = value
    elif isinstance(value, float) and value.is_integer():
        number = int(value)
    else:
        m = _TOKENS.fullmatch(value) if isinstance(value, str) else None
        if m is None:
            raise not_tokens
        sign, digits, unit = m.group(1), m.group(2).replace(",", "").replace("_", ""), m.group(3).lower()
        scaled = float(sign + digits) * {"": 1, "k": 1_000, "m": 1_000_000}[unit]
        if not scaled.is_integer() or (not unit and "." in digits):
            raise not_tokens
        number = int(scaled)
    if number < least:
        bound = ("0 or more tokens" if least <= 0 else "a positive number of tokens" if least == 1
                 else f"at least {least:,} tokens")
        raise _bad(f"must be {bound} ({TOKENS_EXAMPLE}), not {shown}")
    if most is not None and number > most:
        raise _bad(f"must be at most {most:,} tokens, not {shown}")
    return number


def _bad(message: str) -> PydanticCustomError:
    """A ValueError whose text is `message` alone, also under pydantic (no `Value error,` before it)."""
    return PydanticCustomError("bad_value", "{message}", {"message": message})


def _quoted(value: object) -> str:
    """Text in quotes, a number as it is; a value of another kind (a file's `[1, 2]`, `{a = 1}`, a
    date, `true`) by its kind in words, never Python's form of it (`{'a': 1}`, `datetime.date(…)`)."""
    return in_words(value.strip() if isinstance(value, str) else value)


def tokens(least: int = 1, most: int = MAX_WINDOW) -> Any:
    """The `parser=` of an option taking a number of tokens (see parse_tokens)."""
    return lambda value: parse_tokens(value, least=least, most=most)


def count(least: int, what: str) -> Any:
    """The `parser=` of an option taking a whole number of `what` (`--max-turns`)."""
    def parse(value: object) -> int:
        text = str(value).strip()
        if not re.fullmatch(r"[+-]?\d+", text.replace(",", "").replace("_", "")):
            raise _bad(f"expected a whole number of {what} ({least:,} or more), not {quoted(text)}")
        number = int(text.replace(",", "").replace("_", ""))
        if number < least:
            raise _bad(f"must be at least {least:,} (a number of {what}), not {number}")
        return number
    return parse
