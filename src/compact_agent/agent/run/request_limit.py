"""A turn stopped at its limit of model requests (`--max-turns`, `max_requests_per_turn`) keeps
what it did.

pydantic-ai checks the limit before a request, after the tools of the previous reply ran: the
reply with its tool calls and their results are in the run's history, but the history is saved
before each request (the context manager's hook), and no request follows. Without this the turn's
work was lost: the session held the user's message alone, listed as unanswered, though the model
had answered with tool calls that ran (and changed files). `KeepAtLimit` saves the history as the
run had it, then marks that the limit stopped it (session/last_run.py), so a later load says so
rather than warning of a run that died.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from pydantic_ai.capabilities import AbstractCapability
from pydantic_ai.capabilities.abstract import AgentNode, NodeResult
from pydantic_ai.exceptions import UsageLimitExceeded
from pydantic_ai.messages import ModelMessage
from pydantic_ai.tools import RunContext


@dataclass
class KeepAtLimit(AbstractCapability[Any]):
    """Add to an Agent's capabilities; `keep(messages)` is called with the run's history when the
    request limit stops the run (the limit's error is raised after it either way)."""

    keep: Callable[[Sequence[ModelMessage]], None]

    async def on_node_run_error(self, ctx: RunContext[Any], *, node: AgentNode[Any],
                                error: Exception) -> NodeResult[Any]:
        # The run's own error hook sees no messages: the failing node's context holds them.
        if isinstance(error, UsageLimitExceeded) and ctx.messages:
            try:
                self.keep(list(ctx.messages))
            except Exception:  # noqa: BLE001 - the limit is what the turn ends with; the store says its own
                pass
        raise error
