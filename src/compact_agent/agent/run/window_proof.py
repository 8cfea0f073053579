"""A server that takes a prompt larger than the window kept for it has a larger one now: forget it.

The window a server showed (a refusal, prompts cut) is kept for the sessions that follow
(server_windows.py), and a session with no window given works within it, so it never finds out
that the server was restarted with a larger context. A session given a larger window
(`--context-window 32k` against a server remembered at 8,000) sends larger prompts; the first one
the server takes whole, and reports at its size, proves the window kept wrong. It is forgotten
then, so the next session starts in the window given or assumed, and learns the server's anew if
it is smaller (one refusal, or two prompts cut). A server that still cuts prompts reports them at
the size it cut them to, never above the window kept: it proves nothing.

The forgetting is an event of the session ("window" "forgotten": tokens_before the window kept,
tokens_after the prompt taken): written to its event log, and said in one line (in the REPL as its
other notices, on stderr in print mode: server_windows.forgotten_line), as the remembered window
that made a new session start smaller was said when it started.
"""

from __future__ import annotations

import contextlib
from typing import Any

from pydantic_ai.capabilities import AbstractCapability
from pydantic_ai.messages import ModelResponse
from pydantic_ai.models import ModelRequestContext
from pydantic_ai.tools import RunContext

from ...config import home_dir
from ...context import Event
from . import server_windows


class WindowProof(AbstractCapability[Any]):
    """Add to a session's agent: each response's reported input, checked against the window kept
    for the session's endpoint and model (read once for each pair, as /model may switch)."""

    def __init__(self, session: Any) -> None:  # the AgentSession (runner.py) that adds it
        self.session = session
        self.kept: dict[tuple[str, str], int | None] = {}

    def learned(self, window: int) -> None:
        """The session kept `window` for its endpoint and model (runner.py): compare with that."""
        self.kept[self._key()] = window

    def _key(self) -> tuple[str, str]:
        s = self.session
        return server_windows.endpoint(s.opts.base_url, s.info.provider), s.info.name

    async def after_model_request(self, ctx: RunContext[Any], *, request_context: ModelRequestContext,
                                  response: ModelResponse) -> ModelResponse:
        s = self.session
        taken = response.usage.input_tokens
        if not taken or s.opts.model_override is not None:
            return response
        key = self._key()
        home = s.opts.home or home_dir()
        with contextlib.suppress(OSError):
            if key not in self.kept:
                self.kept[key] = server_windows.remembered(home, *key)
            window = self.kept[key]
            if window is not None and taken > window:
                self.kept[key] = None
                if (gone := server_windows.forget_below(home, *key, taken)) is not None:
                    s._on_event(Event("window", "forgotten", gone.window, taken,  # logged, and said
                                      detail={"endpoint": key[0], "model": key[1]}))
        return response
