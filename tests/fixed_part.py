"""What every request of the agent carries, measured: its system prompt and its tools' schemas.

The tests that fill a small window were written at the size this part had then (`WRITTEN_AT`). A
tool added makes it larger by its schema, a hundred tokens or more, and their windows then held a
round less: `window(8_000)` is 8,000 grown by as much, so that the room they fill stays as it
was (docs/pipeline.md, "Adding a tool")."""

from __future__ import annotations

import functools
import tempfile
from pathlib import Path

WRITTEN_AT = 1_005
"""Estimated tokens of the fixed part when these tests were written (six tools)."""

SLACK = 60
"""What the fixed part varies by with no tool added (the working directory's path it names, say)."""


@functools.cache
def fixed_part() -> int:
    """The system prompt and the tools' schemas as the agent estimates them (`fixed_tokens`)."""
    from compact_agent.agent.run.options import SessionOptions
    from compact_agent.agent.run.runner import AgentSession
    from compact_agent.agent.run.window_check import fixed_tokens

    with tempfile.TemporaryDirectory() as d:
        s = AgentSession(SessionOptions(cwd=Path(d), model="fake-model", base_url="http://127.0.0.1:9/v1",
                                        api_key="k", context_window=128_000, home=Path(d) / "home",
                                        permission_mode="yes"))
        try:
            return fixed_tokens(s)
        finally:
            s.close()


def window(written: int) -> int:
    """A window a test was `written` with, grown by what the fixed part grew since."""
    grown = fixed_part() - WRITTEN_AT
    return written if grown <= SLACK else written + grown
