"""`analyze --strategy`'s help names every strategy the analyzer has (replay/baselines.py
`STRATEGIES`) without importing the analyzer, which the command line imports only to run it:
`STRATEGY_NAMES` lists them, and tests/replay/test_strategy_help.py fails, saying where, when a
strategy is registered there and not here. The help was a hand-written copy that no test read."""

from __future__ import annotations

from typing import Any

from typer.core import TyperOption

from .cli_help import ReadableCommand

STRATEGY_NAMES: tuple[str, ...] = ("ours", "none", "seed000", "seed000-submit", "codex", "masking", "opencode",
                                   "gemini", "cline", "anthropic-clear")
"""The analyzer's strategies, in the order of replay/baselines.py's `STRATEGIES`."""


class AnalyzeCommand(ReadableCommand):
    """`analyze`: a ReadableCommand whose `--strategy` help begins with the strategies' names."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        for param in self.params:
            if param.name == "strategy" and isinstance(param, TyperOption):
                param.help = f"{', '.join(STRATEGY_NAMES)} {param.help or ''}".rstrip()
