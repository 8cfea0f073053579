"""Keep the provider API key out of everything the agent writes or runs.

The key reaches the process as `--api-key` or an environment variable. Two ways it could then end
up on disk, in files meant to be kept and shared (sessions, archives, events, spilled results,
notes): a command the model runs inherits the environment (`env`, a debug script, a failing test
printing its settings), or some text quotes it (a provider error, a config file the model reads).
So commands get an environment without the provider key variables, and every writer of our files
replaces a registered key with `[REDACTED]` before the bytes reach the disk.
"""

from __future__ import annotations

import os
from collections.abc import Mapping

REDACTED = "[REDACTED]"
#: Environment variables holding a key for a provider we talk to.
KEY_VARS = ("DEEPSEEK_API_KEY", "OPENAI_API_KEY", "ANTHROPIC_API_KEY", "COMPACT_AGENT_API_KEY")
MIN_LEN = 12  # shorter values ("none", a test's "k") are not keys and would redact ordinary text

_secrets: set[str] = set()


def register(value: str | None) -> None:
    """Treat `value` as a secret from now on (the key a model was built with)."""
    if value and len(value) >= MIN_LEN:
        _secrets.add(value)


def register_environment(environ: Mapping[str, str] = os.environ) -> None:
    for var in KEY_VARS:
        register(environ.get(var))


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


def scrubbed_env(environ: Mapping[str, str] = os.environ) -> dict[str, str]:
    """The environment for a command the model runs: no provider key variable, and no variable
    whose value is a registered secret (a key exported under another name)."""
    return {k: v for k, v in environ.items() if k not in KEY_VARS and v not in _secrets}
