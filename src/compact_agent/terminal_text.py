"""Text to and from a terminal whose encoding is not UTF-8: never a crash, never a request that fails.

In a C locale without UTF-8 (`LC_ALL=C PYTHONUTF8=0 PYTHONCOERCECLOCALE=0`), with
`PYTHONIOENCODING=ascii` or `latin-1`, or on a terminal set to Latin-1, stdout's encoding cannot
hold the model's CJK, an emoji, nor the marks the interface draws (`→`, `·`, `─`), and the first
such character written raised UnicodeEncodeError: the answer was lost after a traceback, the REPL
did not start, `config` never ran. `fit_streams` (called first thing, with the command line) makes
every write succeed:

- text (the answer, the REPL, `config`, `sessions`, `analyze`'s tables) is written with
  `PLAIN`: a mark of the interface that the encoding lacks becomes its ASCII stand-in (`→` `->`,
  `·` `-`, `─` `-`, `…` `...`), an accented letter its bare letter (`é` `e`), anything else `?`;
  in UTF-8 only a lone surrogate (bytes of a prompt that were not UTF-8) is replaced, by `�`;
- JSON (`-p --output-format json` and `stream-json`, `config --json`, `analyze --json`) is
  always valid JSON: where stdout is not UTF-8 it is written in ASCII, every other character as
  its JSON escape (`\\u00e9`, an emoji as its two `\\ud83d\\udc4b`), which every locale carries
  and every JSON reader decodes to the same text; in UTF-8, as UTF-8, a lone surrogate escaped.

stderr keeps Python's own `backslashreplace`.

What is typed into the REPL is read as `TYPED`: UTF-8, and a byte that is not UTF-8 as the
character Windows-1252 (else Latin-1) gives it, as a piped prompt is read (cli_input.as_text).
Python read such a byte as a lone surrogate (a terminal set to Latin-1 sends `é` as the one byte
0xE9; one whose locale is C sends UTF-8 that ASCII cannot read), which no request can carry: the
turn failed before a request was made, and again on every retry. A terminal whose locale names an
8-bit encoding (Latin-1, KOI8-R) reads every byte already, and is left as it is.
"""

from __future__ import annotations

import codecs
import contextlib
import sys
import unicodedata
from typing import Any

#: The error handler text on stdout is written with (registered below).
PLAIN = "compact_agent.plain"
#: The error handler JSON on stdout is written with: each character its JSON escape.
JSON_ESCAPE = "compact_agent.json"

#: The interface's own marks, and the punctuation of its lines, as ASCII (what the encoding lacks).
ASCII_MARKS = {
    "…": "...", "—": "--", "–": "-", "−": "-", "·": "-", "•": "*", "→": "->", "←": "<-", "↑": "^",
    "↓": "v", "↳": "->", "⇒": "=>", "×": "x", "›": ">", "‹": "<", "❯": ">", "≈": "~", "≥": ">=",
    "≤": "<=", "“": '"', "”": '"', "„": '"', "‘": "'", "’": "'", "⎿": "L", "⏺": "*", "●": "*",
    "⏵": ">", "⏎": "|", "↵": "\\n", "⚠": "!", "✓": "v", "✔": "v", "✗": "x", "✘": "x", "☑": "[x]", "☐": "[ ]",
    "◐": "o", "░": ".", "▒": ":", "█": "#", "─": "-", "━": "-", "═": "=", "│": "|", "┃": "|",
    "║": "|", "\u00a0": " ", "\u202f": " ",
}
ASCII_MARKS |= dict.fromkeys("┌┐└┘├┤┬┴┼┏┓┗┛┣┫┳┻╋╭╮╯╰╔╗╚╝╠╣╦╩╬", "+")


def _stand_in(ch: str, encoding: str) -> bytes:
    """What `ch`, which `encoding` cannot hold, is written as: its ASCII mark, its letters without
    their accents (NFKD: `é` `e`, `ﬁ` `fi`), the replacement character `�`, or `?`."""
    bare = "".join(c for c in unicodedata.normalize("NFKD", ch) if not unicodedata.combining(c))
    for candidate in (ASCII_MARKS.get(ch), bare if bare != ch else None, "\ufffd"):
        if candidate:
            with contextlib.suppress(UnicodeError, LookupError):
                return candidate.encode(encoding)  # bytes: UTF-8's encoder takes a str of ASCII only
    return b"?"


def _plain(error: UnicodeError) -> tuple[bytes, int]:
    if not isinstance(error, UnicodeEncodeError):
        raise error
    text = error.object[error.start:error.end]
    return b"".join(_stand_in(ch, error.encoding) for ch in text), error.end


def json_escaped(text: str) -> str:
    """`text` as JSON escapes, each character one `\\uXXXX` (two, as UTF-16 writes it, above U+FFFF)."""
    out = []
    for ch in text:
        code = ord(ch)
        if code > 0xFFFF:
            code -= 0x10000
            out.append(f"\\u{0xD800 + (code >> 10):04x}\\u{0xDC00 + (code & 0x3FF):04x}")
        else:
            out.append(f"\\u{code:04x}")
    return "".join(out)


def _json_escape(error: UnicodeError) -> tuple[str, int]:
    """Characters of a JSON text stdout cannot hold: JSON's own escapes. json.dumps writes every
    character outside ASCII inside a string, where an escape stands for it."""
    if not isinstance(error, UnicodeEncodeError):
        raise error
    return json_escaped(error.object[error.start:error.end]), error.end


#: The encoding the REPL's input is read in (`fit_streams`): UTF-8, each byte that is not as a character of its own.
TYPED = "compact_agent_typed"
_STRAY = "compact_agent.stray_byte"


def _stray_byte(error: UnicodeError) -> tuple[str, int]:
    """Bytes that are not UTF-8: each the character Windows-1252 gives it, else Latin-1's."""
    if not isinstance(error, UnicodeDecodeError):
        raise error
    text = []
    for byte in error.object[error.start:error.end]:
        try:
            text.append(bytes([byte]).decode("cp1252"))
        except UnicodeDecodeError:  # 0x81, 0x8D, 0x8F, 0x90, 0x9D
            text.append(chr(byte))
    return "".join(text), error.end


def _typed_decode(data: Any, errors: str = "strict", /) -> tuple[str, int]:
    return codecs.utf_8_decode(data, _STRAY, True)


class _TypedDecoder(codecs.BufferedIncrementalDecoder):
    """A UTF-8 character split across two reads waits for its end; a byte no character can
    begin or continue is read at once, as `_stray_byte` says."""

    def _buffer_decode(self, input: Any, errors: str, final: bool) -> tuple[str, int]:  # noqa: A002 - the base's name
        return codecs.utf_8_decode(input, _STRAY, final)


def _find_typed(name: str) -> codecs.CodecInfo | None:
    if name != TYPED:
        return None
    utf8 = codecs.lookup("utf-8")
    return codecs.CodecInfo(utf8.encode, _typed_decode, name=TYPED, incrementalencoder=utf8.incrementalencoder,
                            incrementaldecoder=_TypedDecoder, streamwriter=utf8.streamwriter,
                            streamreader=utf8.streamreader)


codecs.register_error(PLAIN, _plain)
codecs.register_error(JSON_ESCAPE, _json_escape)
codecs.register_error(_STRAY, _stray_byte)
codecs.register(_find_typed)


def is_utf8(encoding: str | None) -> bool:
    try:
        return codecs.lookup(encoding or "").name == "utf-8"
    except LookupError:
        return False


def json_output(args: list[str]) -> bool:
    """Whether the command line `args` asks for JSON on stdout: `--output-format json` or
    `stream-json` (print mode's; without `-p` the run is refused, on stderr), a subcommand's
    `--json`; read before any `--`, as __main__.print_args reads it, before the command line's
    definitions are loaded."""
    given = args[:args.index("--")] if "--" in args else args
    formats = [given[i + 1] for i, a in enumerate(given[:-1]) if a == "--output-format"]
    formats += [a.partition("=")[2] for a in given if a.startswith("--output-format=")]
    return "--json" in given or any(f in ("json", "stream-json") for f in formats)


def fit_streams(args: list[str]) -> None:
    """stdout writes whatever it is given (JSON when `args` ask for it, `json_output`), and a
    terminal on stdin is read as `TYPED`, as the module's docstring says. A stream that cannot be
    reconfigured (a test's capture) is left as it is."""
    fit_stdout(json_output(args))
    stdin: Any = sys.stdin  # None without one (pythonw); a test's capture cannot be reconfigured
    with contextlib.suppress(Exception):  # (AttributeError, ValueError, io.UnsupportedOperation)
        if stdin.isatty() and codecs.lookup(stdin.encoding).name in ("utf-8", "ascii"):
            stdin.reconfigure(encoding=TYPED)


def fit_stdout(as_json: bool) -> None:
    """Make stdout write whatever it is given: JSON (`as_json`) or text."""
    reconfigure = getattr(sys.stdout, "reconfigure", None)
    if reconfigure is None:
        return
    utf8 = is_utf8(getattr(sys.stdout, "encoding", None))
    with contextlib.suppress(Exception):  # (ValueError, io.UnsupportedOperation: not for this stream)
        if not as_json:
            reconfigure(errors=PLAIN)
        elif utf8:
            reconfigure(errors=JSON_ESCAPE)
        else:  # ASCII, which every locale's encoding holds the same, and JSON readers read as UTF-8
            reconfigure(encoding="ascii", errors=JSON_ESCAPE)
