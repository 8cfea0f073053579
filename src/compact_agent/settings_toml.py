"""Reading one config file: its TOML table, or one line saying why it cannot be read (not a
regular file, too large, not UTF-8, not TOML, with a hint when a bare word wants quotes). The
settings themselves: settings_file.py.

A file an editor saved with UTF-8's byte-order mark (Notepad's "UTF-8 with BOM") is read without
it: the mark was read as TOML, `Invalid statement (at line 1, column 1)`. One saved as UTF-16 or
UTF-32 is said to be that (by its mark, or UTF-16 by a zero in every other byte of its first ones,
as ASCII text in UTF-16 has), not `not UTF-8 text (byte 0)` alone."""

from __future__ import annotations

import codecs
import json
import re
import sys
import tomllib
from pathlib import Path
from typing import Any

from .regular_file import NotRegular, TooLarge, read_capped
from .settings_checks import SettingsError

#: A config file is a few hundred bytes; one past this is a mistake or a trap (`-> /dev/zero`).
MAX_CONFIG_BYTES = 1_000_000


def read_toml(path: Path, cap: int = MAX_CONFIG_BYTES, named_by: str = "") -> dict[str, Any]:
    """The file's table, {} when it does not exist; SettingsError (one line) when it is unreadable,
    not a regular file (a FIFO would hang start-up, `/dev/stdin` would parse the piped prompt) or
    larger than `cap`. `named_by`: the variable that named the path, which the line then names
    with what to do (`COMPACT_AGENT_CONFIG=/etc` is a folder, no config file)."""
    point = f" (named by {named_by}: point it at a config file, or unset it)" if named_by else ""
    text = ""
    try:
        data = read_capped(path, cap)
        if (other := wide_encoding(data)) is not None:
            raise SettingsError(f"{path}: not UTF-8 text (byte 0): {other}; save it as UTF-8{point}")
        text = data.removeprefix(codecs.BOM_UTF8).decode("utf-8")
        return tomllib.loads(text)
    except SettingsError:  # (a ValueError, which a number too long is below)
        raise
    except FileNotFoundError:
        return {}
    except NotRegular:
        raise SettingsError(f"{path}: not a regular file; not read{point}") from None
    except TooLarge:
        raise SettingsError(f"{path}: larger than {cap} bytes; not read{point}") from None
    except tomllib.TOMLDecodeError as e:
        raise SettingsError(f"{path}: not valid TOML ({e}){f' (named by {named_by})' if named_by else ''}"
                            f"{quote_hint(text, str(e))}") from None
    except UnicodeDecodeError as e:
        raise SettingsError(f"{path}: not UTF-8 text (byte {e.start}){point}") from None
    except RecursionError:  # valid-looking TOML nested past the parser's limit (`x = [[[[…]]]]`)
        raise SettingsError(f"{path}: nested too deeply (arrays or tables in one another); not read{point}") from None
    except ValueError:  # Python's own limit on the digits of a whole number it reads (4,300)
        raise SettingsError(f"{path}: {too_long(text)}{f' (named by {named_by})' if named_by else ''}") from None
    except OSError as e:
        raise SettingsError(f"{path}: cannot read ({e.strerror or e}){point}") from None


#: Byte-order marks of the encodings a config file is not in, UTF-32's first (UTF-32LE's begins with UTF-16LE's).
_MARKS = ((codecs.BOM_UTF32_LE, "UTF-32"), (codecs.BOM_UTF32_BE, "UTF-32"), (codecs.BOM_UTF16_LE, "UTF-16"),
          (codecs.BOM_UTF16_BE, "UTF-16"))


def wide_encoding(data: bytes) -> str | None:
    """Where `data` is UTF-16 or UTF-32 text, the words that say so; else None."""
    for mark, name in _MARKS:
        if data.startswith(mark):
            return f"it begins with {name}'s byte-order mark, as a file saved as {name} does"
    head = data[:64 if len(data) >= 64 else len(data) & ~1]  # whole pairs
    for zeros, others in ((head[1::2], head[0::2]), (head[0::2], head[1::2])):  # little-endian, big-endian
        if len(zeros) >= 2 and zeros.count(0) * 2 >= len(zeros) and 0 not in others:
            return "every other byte is zero, as in UTF-16 text without a byte-order mark"
    return None


_AT_LINE = re.compile(r"\(at line (\d+), column \d+\)")
_UNQUOTED = re.compile(r"""\s*([\w.-]+)\s*=\s*([^\s"'\[{#]\S*?)\s*(?:#.*)?""")


_DIGITS = re.compile(r"[0-9][0-9_]*")
#: A name that says its value is a secret: the hint does not write the value back. A file that does
#: not parse is read before any key is registered, so nothing would redact `api_key = sk-…` (no
#: setting: keys come from the environment) on the terminal or in a CI log.
_SECRET_NAME = re.compile(r"(?i)key|token|secret|passw|pwd|auth|credential")
_RUN = re.compile(r"[A-Za-z0-9]{16,}")


def key_like(value: str) -> bool:
    """Whether `value` holds what reads like a key's random part: 16 letters and digits or more in a
    run, both kinds in it (`sk-proj-4fQ…`), which no model name, window or address has."""
    return any(re.search("[0-9]", r) and re.search("[A-Za-z]", r) for r in _RUN.findall(value))


def too_long(text: str) -> str:
    """Where a TOML text holds a whole number too long to read, in words: `line 3: a number of
    4,301 digits is too long to read` (Python said `Exceeds the limit (4300 digits) for integer
    string conversion…; use sys.set_int_max_str_digits()`)."""
    limit = sys.get_int_max_str_digits() or 4300
    for n, line in enumerate(text.splitlines(), 1):
        for run in _DIGITS.findall(line):
            if (digits := len(run.replace("_", ""))) > limit:
                return f"line {n}: a number of {digits:,} digits is too long to read"
    return f"a number of more than {limit:,} digits is too long to read"


def quote_hint(text: str, error: str) -> str:
    """`; write text in quotes: context_window = "32k"` when the line TOML stopped at gives a
    setting a bare word (`context_window = 32k`, as a window is written on the command line)."""
    at = _AT_LINE.search(error)
    lines = text.splitlines()
    if at is None or not 1 <= int(at.group(1)) <= len(lines):
        return ""
    line = _UNQUOTED.fullmatch(lines[int(at.group(1)) - 1])
    if line is None:
        return ""
    key, value = line.groups()
    try:
        tomllib.loads(f"x = {value}")
        return ""  # a value TOML takes: the trouble is elsewhere on the line
    except tomllib.TOMLDecodeError:
        if _SECRET_NAME.search(key) or key_like(value):
            return f'; write text in quotes: {key} = "…" (its value, in double quotes)'
        return f"; write text in quotes: {key} = {json.dumps(value)}"


def read_or_say(path: Path, unread: list[str], named_by: str = "") -> dict[str, Any]:
    """`read_toml`'s table, or {} with its one line added to `unread`."""
    try:
        return read_toml(path, named_by=named_by)
    except SettingsError as e:
        unread.append(str(e))
        return {}
