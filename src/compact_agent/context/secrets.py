"""Secrets never reach a file the library writes: the registry of values to redact.

The agent registers the provider key it was built with (`register`); every writer of our files
(spilled results, notes, the collapse log, the session store) passes its bytes through `redact`.
Reading keys from the environment and scrubbing a command's environment are the agent's business
(`compact_agent.secrets`): a library reads no environment.
"""

from __future__ import annotations

REDACTED = "[REDACTED]"
MIN_LEN = 12  # shorter values ("none", a test's "k") are not keys and would redact ordinary text

_secrets: set[str] = set()


def register(value: str | None) -> None:
    """Treat `value` as a secret from now on (the key a model was built with)."""
    if value and len(value) >= MIN_LEN:
        _secrets.add(value)


def redact(text: str) -> str:
    """`text` with every registered secret replaced; a no-op while none is registered."""
    for s in _secrets:
        if s in text:
            text = text.replace(s, REDACTED)
    return text


def redact_bytes(data: bytes) -> bytes:
    if not _secrets:
        return data
    return redact(data.decode("utf-8", "surrogateescape")).encode("utf-8", "surrogateescape")
