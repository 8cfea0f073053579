"""Secrets never reach a file the library writes: the registry of values to redact.

The agent registers the provider key it was built with (`register`); every writer of our files
(spilled results, notes, the collapse log, the session store) passes its bytes through `redact`.
Reading keys from the environment and scrubbing a command's environment are the agent's business
(`compact_agent.secrets`): a library reads no environment.

A command that can print the key can as easily print it transformed, and a literal match would
miss that. So a registered key is also looked for reversed (`| rev`), base64-encoded at any byte
alignment (`| base64`, the fragment that does not depend on its neighbours), split by whitespace
(`| fold -w 8`, `| sed 's/./& /g'`) or NULs (a UTF-16 file), with the same few characters between
each two of its characters (`cat -A`'s `^@`, a byte string's `\\x00`), and in pieces: any `FRAGMENT` characters of its random part
(`cut -c20-27`, `${KEY:10:8}`, a key printed in halves by two commands), each piece redacted
whole, as far as it goes on matching the key. The random part is what follows the key's kind
(`sk-`, `sk-ant-api03-`: the same in every key of that kind, so ordinary text names it), and a
piece counts only when it mixes letters and digits (a key typed by hand, `sk-local-12345678…`, must
not redact every run of digits). The key, its reverse and its pieces are matched in any case
(`| tr a-z A-Z` leaves a key guessed in a few million tries); base64 is not, as its case is its
content. Other encodings (hex, rot13) and shorter pieces are not caught: redaction is a net, not a wall.
"""

from __future__ import annotations

import base64
import re

REDACTED = "[REDACTED]"
MIN_LEN = 12  # shorter values ("none", a test's "k") are not keys and would redact ordinary text

FRAGMENT = 8  # the shortest piece of a key's random part that is redacted on its own
_KIND = re.compile(r"(?:[A-Za-z0-9]{1,6}-)*")  # a key's kind before its random part: `sk-`, `sk-ant-api03-`

#: What may stand between a spread key's characters: whitespace, and the NULs and other controls
#: a text in UTF-16 or UTF-32 shows between them when its bytes are read as 8-bit text.
_GAP = r"[\s\x00-\x08\x0e-\x1f\x7f]*"
#: The longest run of characters repeated between each two of a key's (`\x00\x00\x00`, UTF-32's NULs
#: as Python prints bytes) that is still seen through.
_SEP = 12

registered_keys: set[str] = set()  # the keys as given
key_forms: set[str] = set()  # their literal transforms (reversed, base64 fragments)
_spread: list[re.Pattern[str]] = []  # a key with whitespace (`_GAP`), or one same separator, between its characters
_bodies: set[str] = set()  # their random parts, long enough to be cut into pieces
_pieces: re.Pattern[str] | None = None  # any FRAGMENT characters of one of them


def register(value: str | None) -> None:
    """Treat `value` as a secret from now on (the key a model was built with)."""
    if not value or len(value) < MIN_LEN or value in registered_keys:
        return
    registered_keys.add(value)
    forms = [value[::-1]]
    raw = value.encode("utf-8", "surrogateescape")
    for pad in range(3):
        enc = base64.b64encode(b"\0" * pad + raw).decode()
        start, end = -(-pad * 8 // 6), (pad + len(raw)) * 8 // 6  # characters made of key bits only
        if end - start >= MIN_LEN:
            forms.append(enc[start:end])
    key_forms.update(forms)
    # `base64` wraps its lines, `fold` cuts them: every form may come with whitespace inside; a file
    # in UTF-16 or UTF-32 (a `.env` Windows PowerShell wrote), printed by `cat`, puts NULs there, and
    # as `cat -A` or a program printing its bytes shows them, the same few characters (`^@`, `\x00`)
    # (the key and its reverse in any case: see the module's docstring)
    cased = [(f, re.I if i < 2 else 0) for i, f in enumerate((value, *forms))]
    _spread.extend(re.compile(_GAP.join(re.escape(c) for c in f), flags) for f, flags in cased)
    _spread.extend(re.compile(f"{re.escape(f[0])}(?P<s>.{{1,{_SEP}}}?){re.escape(f[1])}"
                              + "".join(f"(?P=s){re.escape(c)}" for c in f[2:]), re.S | flags) for f, flags in cased)
    kind = _KIND.match(value)
    body = value[kind.end():] if kind else value
    if len(body) >= 2 * FRAGMENT:
        _bodies.add(body.lower())
        _compile_pieces()


def _random_looking(piece: str) -> bool:
    return (len(set(piece)) > FRAGMENT // 2 and any(c.isdigit() for c in piece)
            and any(c.isalpha() for c in piece))


def _compile_pieces() -> None:
    global _pieces
    pieces = sorted({b[i:i + FRAGMENT] for b in _bodies for i in range(len(b) - FRAGMENT + 1)
                     if _random_looking(b[i:i + FRAGMENT])})
    _pieces = re.compile("|".join(map(re.escape, pieces)), re.I) if pieces else None


def _piece_spans(text: str) -> list[tuple[int, int]]:
    """Where pieces of a key's random part stand in `text`: each match grown both ways for as long
    as what it covers is still a piece of the same key (in any case: `_bodies` are lower-cased)."""
    if _pieces is None:
        return []
    spans: list[tuple[int, int]] = []
    pos = 0
    while (m := _pieces.search(text, pos)) is not None:
        start, end = m.span()
        while end < len(text) and any(text[start:end + 1].lower() in b for b in _bodies):
            end += 1
        while start > pos and any(text[start - 1:end].lower() in b for b in _bodies):
            start -= 1
        spans.append((start, end))
        pos = end
    return spans


def _without_pieces(text: str) -> str:
    spans = _piece_spans(text)
    if not spans:
        return text
    out, last = [], 0
    for start, end in spans:
        out += [text[last:start], REDACTED]
        last = end
    return "".join([*out, text[last:]])


_URL_PASSWORD = re.compile(r"""([A-Za-z][A-Za-z0-9+.-]*://[^\s/?#@:'"<>\\]*):[^\s/?#@'"<>\\]*@""")
"""The password of an address's userinfo (`scheme://user:password@host`): each part a run of
characters an address cannot hold unescaped before its host, so the match is linear."""


def hide_url_password(text: str) -> str:
    """`text` with the password of every address in it shown as `***` (`http://bob:***@host/v1`).
    An endpoint given with a password comes back in every response pydantic-ai records
    (`ModelResponse.provider_url`), and a password too short to register as a key (`MIN_LEN`) would
    reach the session file whole. A user name alone (`ssh://git@host`) stays."""
    if "://" not in text or "@" not in text:
        return text
    return _URL_PASSWORD.sub(r"\1:***@", text)


def redact(text: str) -> str:
    """`text` with every registered secret (and its transforms) replaced, and the password of every
    address in it (`hide_url_password`)."""
    text = hide_url_password(text)
    if not registered_keys:
        return text
    for s in (*registered_keys, *key_forms):
        if s in text:
            text = text.replace(s, REDACTED)
    for pattern in _spread:
        text = pattern.sub(REDACTED, text)
    return _without_pieces(text)


class StreamRedactor:
    """`redact` for a text that arrives in pieces (a streamed answer), where a key may be cut
    across two of them: `feed` returns what is safe to show now, holding back the end that could
    still become a secret; `flush` returns the rest when the stream ends. Joined, what they return
    has every secret `redact` would find in the whole text redacted (a key spread by more than one
    whitespace character per character, or by a separator such as `\\x00` or `^@`, may be missed
    across pieces: only twice the longest form is held back, and holding back `_SEP` times it would
    hold a streamed answer's last lines for long; a net, as above)."""

    def __init__(self) -> None:
        self._held = ""

    def feed(self, piece: str) -> str:
        text = self._held + piece
        if not registered_keys:
            self._held = ""
            return text
        # The longest form of a key, spread by whitespace as `fold` or `sed 's/./& /g'` would (each
        # character followed by one), is what a piece's end may still be the beginning of.
        cut = len(text) - 2 * max(map(len, (*registered_keys, *key_forms)))
        if cut <= 0:
            self._held = text
            return ""
        spans = [(m.start(), m.end()) for p in _spread for m in p.finditer(text)] + _piece_spans(text)
        moved = True
        while moved:  # a secret across the cut is held back whole
            moved = False
            for start, end in spans:
                if start < cut < end:
                    cut, moved = start, True
        self._held = text[cut:]
        return redact(text[:cut])

    def flush(self) -> str:
        text, self._held = self._held, ""
        return redact(text)


def redact_bytes(data: bytes) -> bytes:
    if not registered_keys and (b"://" not in data or b"@" not in data):
        return data
    return redact(data.decode("utf-8", "surrogateescape")).encode("utf-8", "surrogateescape")
