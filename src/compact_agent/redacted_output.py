"""The output of a subcommand (`config`, `sessions`, `analyze`) without the provider key.

The chat command learns the keys as it starts (cli_settings.protect_key) and redacts each of its
writers; a subcommand builds no model, so it learned none: `compact-agent --api-key K config`
printed a hook's command holding K whole (or its first 24 characters, where the table cut it),
`sessions --delete K` ('no session sk-…'), `analyze K` ('no such file or directory: sk-…') and
a session's row quoting a prompt that held the key said it too. So a subcommand learns them
first, the key given with `--api-key` (before the subcommand or, for `analyze`, after it) and
those of the environment, and writes through streams that redact every registered key, whatever
part of it prints (the analyzer's own lines included, which it writes itself).
"""

from __future__ import annotations

import sys
from collections.abc import Iterable
from typing import Any

from . import secrets


class RedactedStream:
    """A text stream (sys.stdout, sys.stderr) whose every write has the registered keys redacted.
    A subcommand writes whole lines or whole texts, so a key is not cut across two writes; where
    it were, each piece of eight characters or more of it is redacted all the same."""

    def __init__(self, stream: Any) -> None:
        self.stream = stream

    def write(self, text: str) -> int:
        self.stream.write(secrets.redact(text))
        return len(text)  # what the caller gave: [REDACTED] is not the length it wrote

    def writelines(self, lines: Iterable[str]) -> None:
        for line in lines:
            self.write(line)

    def __getattr__(self, name: str) -> Any:  # flush, isatty, encoding, fileno: the stream's own
        return getattr(self.stream, name)


def learn_keys(api_key: str | None) -> None:
    """Register `api_key`, every key given with `--api-key` on the command line (before a
    subcommand or after it) and those of the environment, without the warning and the hiding from
    commands that the chat command adds (a subcommand runs no command). Also what a usage error
    says before the command runs (cli_help.without_keys)."""
    secrets.register(api_key)
    secrets.register_environment()
    for at, arg in enumerate(sys.argv):  # also `analyze --api-key K`, given after the subcommand
        if arg == "--api-key" and at + 1 < len(sys.argv):
            secrets.register(sys.argv[at + 1])
        elif arg.startswith("--api-key="):
            secrets.register(arg.partition("=")[2])


def redact_output(api_key: str | None) -> None:
    """Learn the keys, then write stdout and stderr through RedactedStream for the rest of the run."""
    learn_keys(api_key)
    for name in ("stdout", "stderr"):
        stream = getattr(sys, name)
        if stream is not None and not isinstance(stream, RedactedStream):
            setattr(sys, name, RedactedStream(stream))
