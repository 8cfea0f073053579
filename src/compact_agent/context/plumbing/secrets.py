"""Secrets never reach a file the library writes: the registry of values to redact.

The agent registers the provider key it was built with (`register`); every writer of our files
(spilled results, notes, the collapse log, the session store) passes its bytes through `redact`.
Reading keys from the environment and scrubbing a command's environment are the agent's business
(`compact_agent.secrets`): a library reads no environment.

A command that can print the key can as easily print it transformed, and a literal match would
miss that. So a registered key is also looked for reversed (`| rev`), base64-encoded at any byte
alignment (`| base64`, the fragment that does not depend on its neighbours) and split by
whitespace (`| fold -w 8`, `| sed 's/./& /g'`). Other encodings (hex, rot13, a key cut into
pieces by a program) are not caught: redaction is a net, not a wall.
"""

from __future__ import annotations

import base64
import re

REDACTED = "[REDACTED]"
MIN_LEN = 12  # shorter values ("none", a test's "k") are not keys and would redact ordinary text

_secrets: set[str] = set()  # the keys as given
_forms: set[str] = set()  # their literal transforms (reversed, base64 fragments)
_spread: list[re.Pattern[str]] = []  # a key with whitespace anywhere between its characters


def register(value: str | None) -> None:
    """Treat `value` as a secret from now on (the key a model was built with)."""
    if not value or len(value) < MIN_LEN or value in _secrets:
        return
    _secrets.add(value)
    forms = [value[::-1]]
    raw = value.encode("utf-8", "surrogateescape")
    for pad in range(3):
        enc = base64.b64encode(b"\0" * pad + raw).decode()
        start, end = -(-pad * 8 // 6), (pad + len(raw)) * 8 // 6  # characters made of key bits only
        if end - start >= MIN_LEN:
            forms.append(enc[start:end])
    _forms.update(forms)
    # `base64` wraps its lines, `fold` cuts them: every form may come with whitespace inside
    _spread.extend(re.compile(r"\s*".join(re.escape(c) for c in f)) for f in (value, *forms))


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
    if not _secrets:
        return text
    for s in (*_secrets, *_forms):
        if s in text:
            text = text.replace(s, REDACTED)
    for pattern in _spread:
        text = pattern.sub(REDACTED, text)
    return text


class StreamRedactor:
    """`redact` for a text that arrives in pieces (a streamed answer), where a key may be cut
    across two of them: `feed` returns what is safe to show now, holding back the end that could
    still become a secret; `flush` returns the rest when the stream ends. Joined, what they return
    has every secret `redact` would find in the whole text redacted (a key spread by more than one
    whitespace character per character may be missed across pieces: a net, as above)."""

    def __init__(self) -> None:
        self._held = ""

    def feed(self, piece: str) -> str:
        text = self._held + piece
        if not _secrets:
            self._held = ""
            return text
        # The longest form of a key, spread by whitespace as `fold` or `sed 's/./& /g'` would (each
        # character followed by one), is what a piece's end may still be the beginning of.
        cut = len(text) - 2 * max(map(len, (*_secrets, *_forms)))
        if cut <= 0:
            self._held = text
            return ""
        spans = [(m.start(), m.end()) for p in _spread for m in p.finditer(text)]
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
    if not _secrets and (b"://" not in data or b"@" not in data):
        return data
    return redact(data.decode("utf-8", "surrogateescape")).encode("utf-8", "surrogateescape")
