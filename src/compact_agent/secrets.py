"""Keep the provider API key out of everything the agent writes or runs.

The key reaches the process as `--api-key` or an environment variable. Two ways it could then end
up on disk, in files meant to be kept and shared (sessions, archives, events, spilled results,
notes): a command the model runs inherits the environment (`env`, a debug script, a failing test
printing its settings), or some text quotes it (a provider error, a config file the model reads).
So commands get an environment without the provider key variables, and every writer of our files
replaces a registered key with `[REDACTED]` before the bytes reach the disk (the registry and the
redaction are the library's, `compact_agent.context.secrets`).
"""

from __future__ import annotations

import os
from collections.abc import Mapping

from .context.secrets import MIN_LEN, REDACTED, _secrets, redact, redact_bytes, register

__all__ = ["KEY_VARS", "MIN_LEN", "REDACTED", "redact", "redact_bytes", "register", "register_environment",
           "scrubbed_env"]

#: Environment variables holding a key for a provider we talk to.
KEY_VARS = ("DEEPSEEK_API_KEY", "OPENAI_API_KEY", "ANTHROPIC_API_KEY", "COMPACT_AGENT_API_KEY")


def register_environment(environ: Mapping[str, str] = os.environ) -> None:
    for var in KEY_VARS:
        register(environ.get(var))


def scrubbed_env(environ: Mapping[str, str] = os.environ) -> dict[str, str]:
    """The environment for a command the model runs: no provider key variable, and no variable
    whose value is a registered secret (a key exported under another name)."""
    return {k: v for k, v in environ.items() if k not in KEY_VARS and v not in _secrets}
