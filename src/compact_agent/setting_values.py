"""What a setting's value must be, said in the program's words when a value is not that.

pydantic says "Input should be a valid integer, unable to parse string as an integer" for
`max_retries = "many"`; the user reads `expected a whole number from 0 to 10, not 'many'` instead:
the kind of value (a whole number, a number, true or false, text in quotes, a list, a table) and
its range, from the setting's own declaration (config.Settings), so the line and the range agree.
An error the settings' own validators word (a number of tokens: cli_numbers.parse_tokens) is theirs.
"""

from __future__ import annotations

import datetime
import types
import typing
from typing import Any, NamedTuple

from pydantic.fields import FieldInfo

#: pydantic's error types about the kind of a value, and about its range.
_KIND_ERRORS = frozenset({"int_parsing", "int_type", "int_from_float", "int_parsing_size", "float_parsing",
                          "float_type", "finite_number", "bool_parsing", "bool_type", "string_type", "list_type",
                          "dict_type", "missing"})
_RANGE_ERRORS = frozenset({"greater_than", "greater_than_equal", "less_than", "less_than_equal"})


def said(field: FieldInfo | None, error: Any) -> str:
    """The reason for `error` (one of pydantic's `ValidationError.errors()`) about setting `field`:
    what the setting takes, and the value given (`expected a number above 0 and at most 1, not 7`)."""
    kind = str(error.get("type", ""))
    message = str(error.get("msg", "invalid"))
    if field is None or kind not in _KIND_ERRORS | _RANGE_ERRORS:
        return message
    loc = tuple(error.get("loc", ()))
    given = shown(error.get("input"))
    if len(loc) > 1 and isinstance(loc[1], int):  # an item of a list setting
        return f"expected a list of text in quotes ([\"...\"]), and item {loc[1] + 1} is {given}"
    wanted = takes(field)
    return f"{'must be' if kind in _RANGE_ERRORS else 'expected'} {wanted}, not {given}"


class Bad(NamedTuple):
    """One bad value: the setting, or its entry (`hooks.PreCompact`, `mcp_servers.docs`); where it
    came from (`from PATH`, `from env NAME`, `remembered by …`); why. `alone`: the line when it is
    the only one, where that is not `bad value for KEY (WHERE): REASON` (a hook's or MCP server's
    reads `PATH: hooks.PreCompact: …`, as it always did)."""

    key: str
    where: str
    reason: str
    alone: str = ""


def bad_values(found: list[Bad]) -> str:
    """One line saying every bad value (`found`), those of one place together: a file with two got
    its second said only once the first was fixed. One value is `bad value for KEY (from WHERE):
    REASON`, as it always was."""
    if len(found) == 1:
        [(key, where, reason, alone)] = found
        return alone or f"bad value for {key} ({where}): {reason}"
    keys = len({bad.key for bad in found})  # two hooks of one event are one setting
    head = f"bad values for {keys} setting{'' if keys == 1 else 's'}"
    places = list(dict.fromkeys(bad.where for bad in found))
    found = sorted(found, key=lambda bad: places.index(bad.where))  # a place's values together
    if len(places) == 1:
        return f"{head} ({found[0].where}): " + "; ".join(f"{bad.key}: {bad.reason}" for bad in found)
    return f"{head}: " + "; ".join(f"{bad.key} ({bad.where}): {bad.reason}" for bad in found)


def takes(field: FieldInfo) -> str:
    """What a setting's value is: `a whole number from 0 to 10`, `true or false`, `text in quotes`."""
    base = base_type(field.annotation)
    if base is bool:
        return "true or false"
    if base is str:
        return "text in quotes"
    if base is list:
        return "a list of text in quotes ([\"...\"])"
    if base is dict:
        return "a table"
    noun = "a whole number" if base is int else "a number"
    lo = hi = None
    lo_open = hi_open = False
    for rule in field.metadata:
        for name, is_low, is_open in (("ge", True, False), ("gt", True, True), ("le", False, False),
                                      ("lt", False, True)):
            value = getattr(rule, name, None)
            if value is None:
                continue
            if is_low:
                lo, lo_open = value, is_open
            else:
                hi, hi_open = value, is_open
    low = None if lo is None else (f"above {_num(lo)}" if lo_open else f"{_num(lo)} or more")
    high = None if hi is None else (f"below {_num(hi)}" if hi_open else f"at most {_num(hi)}")
    if low and high:
        if not lo_open and not hi_open:
            return f"{noun} from {_num(lo)} to {_num(hi)}"
        return f"{noun} {low} and {high}"
    if low or high:
        return f"{noun} of {low}" if low and not lo_open else f"{noun} {low or high}"
    return noun


def base_type(annotation: Any) -> Any:
    """int, float, bool, str, list or dict: the type under `X | None` and `Annotated`."""
    origin = typing.get_origin(annotation)
    if origin is typing.Annotated:
        return base_type(typing.get_args(annotation)[0])
    if origin in (typing.Union, types.UnionType):
        kinds = [a for a in typing.get_args(annotation) if a is not type(None)]
        return base_type(kinds[0]) if len(kinds) == 1 else annotation
    return origin or annotation


def _num(value: Any) -> str:
    return f"{value:g}" if isinstance(value, float) else f"{value:,}"


def shown(value: Any) -> str:
    """A value as a config file writes it, or its kind in words where Python's form would be shown
    (`{'a': 1}`, `None`, `True`, `datetime.date(…)`): `a table`, `null`, `true`, `a date`; text
    in quotes (`'many'`), numbers as they are, but a whole one of a million or more written with a
    fraction or an exponent (`1e9`), which is said as a whole number (`1,000,000,000`). Text is in
    TOML's quotes (`toml_text`), so it can be pasted back into the file: Python's form of it (`repr`)
    doubled each backslash in single quotes, where TOML reads none (`'a\\\\b'` for `a\\b`), and
    put `it's "x"` in quotes TOML does not read."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if value is None:
        return "null"
    kinds = ((dict, "a table"), (list | tuple, "a list"), (datetime.datetime, "a date and time"),
             (datetime.date, "a date"), (datetime.time, "a time"))
    for kind, words in kinds:
        if isinstance(value, kind):
            return words
    if isinstance(value, float) and value.is_integer() and abs(value) >= 1e6:
        # `1e9` in a file: Python writes it `1000000000.0`, which the user never wrote
        text = f"{int(value):,}" if abs(value) < 1e15 else f"{value:g}"
    else:
        text = toml_text(value) if isinstance(value, str) else repr(value) if isinstance(value, int | float) \
            else "a value of another kind"
    return text if len(text) <= 60 else text[:59] + "…"


#: What a TOML basic string ("...") writes with a backslash; any other control as \uXXXX.
_TOML_ESCAPES = {ord('"'): '\\"', ord("\\"): "\\\\", ord("\b"): "\\b", ord("\t"): "\\t", ord("\n"): "\\n",
                 ord("\f"): "\\f", ord("\r"): "\\r"}
_TOML_ESCAPES |= {c: f"\\u{c:04X}" for c in [*range(0x20), 0x7F] if c not in _TOML_ESCAPES}


def toml_text(text: str) -> str:
    """`text` as a TOML file writes it: between single quotes as it is (`'a\\b'`: a literal string
    takes a backslash as itself), or between double quotes with TOML's escapes where it holds a
    single quote or a control (`"it's"`, `"a\\tb"`)."""
    if "'" not in text and not any(ord(c) < 0x20 or ord(c) == 0x7F for c in text):
        return f"'{text}'"
    return f'"{text.translate(_TOML_ESCAPES)}"'
