"""A first run that made no model request leaves the manager to the next conversation.

A manager serves the first conversation it sees (lifecycle.py `state_for`), and `cm.window` is that
conversation's window, read at its first request when none was given. A first run that failed before
any request (its model's window unknown, an instructions function that raised) took the manager all
the same: the next run, a new conversation (pydantic-ai gives each run without a history a new id),
ran in a copy of the state, and `cm.window` stayed None for good, though that run had worked within
its model's window. Such a run left nothing in the state: no window read, nothing stored, compacted
or decided. The conversation is let go then, and the next run's takes the manager. One that took a
saved state given for it (`load_layer_state(..., conversation_id=)`) keeps the manager: that state is
its own.
"""

from __future__ import annotations

from typing import Any

from pydantic_ai.capabilities.abstract import WrapRunHandler
from pydantic_ai.run import AgentRunResult
from pydantic_ai.tools import RunContext

from . import lifecycle
from .state import ManagerState


async def wrap_run(cm: ManagerState, ctx: RunContext[Any], *, handler: WrapRunHandler) -> AgentRunResult[Any]:
    """`lifecycle.wrap_run`, the conversation let go where the run failed before its first request."""
    try:
        return await lifecycle.wrap_run(cm, ctx, handler=handler)
    except BaseException:
        let_go(cm, ctx.conversation_id or "")
        raise


def let_go(cm: ManagerState, key: str) -> None:
    """The manager's own state serves no conversation again, if `key`'s run left nothing in it."""
    with lifecycle._CLAIM:  # not while a run in another thread looks its state up (`state_for`)
        if (cm._manager is None and cm._conversation == key and cm._windows.model is None
                and not cm.compactions and not cm._sync.started and not lifecycle.busy(cm)
                and not cm.took_saved):
            cm._conversation = None
            cm._sync.given = None  # the history the failed run was given (`StoreSync.starting`)
