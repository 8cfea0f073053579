"""The `init` object `--output-format stream-json` starts with: the session, its window, and the tools.

Its `tools` are those the run's first request carries (first_request.py): the built-in ones, the
plan's and the MCP servers' (or `tool_search` in their place, in a small window). It listed the
built-in ones only, because the servers connect with the first turn, after it: a script reading it
did not see the tools the model would be offered. The servers connect for it now, as the first turn
would (once a session), and what they report meanwhile (an `event`, a server that failed) follows it:
`init` stays the first line.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Protocol

from ..agent.run.first_request import tool_names
from ..agent.run.window_check import tool_definitions

if TYPE_CHECKING:
    from ..agent.run.runner import AgentSession


class Emitting(Protocol):
    """What `init` is written through: print_mode.PrintRun (not imported: print_mode imports this)."""

    held: list[dict[str, Any]] | None  # objects said while `init` is made, to follow it

    def emit(self, obj: dict[str, Any]) -> None: ...


async def emit_init(run: Emitting, s: AgentSession) -> None:
    """Write `init`, then what was said while it was made."""
    run.held = []
    try:
        tools = await tool_names(s)
    except Exception:  # noqa: BLE001 - a server that fails now fails the turn in its own line; `init` comes first
        tools = [t.name for t in tool_definitions(s)]
    finally:
        held, run.held = run.held, None
    run.emit(init_object(s, tools))
    for obj in held:
        run.emit(obj)


def init_object(s: AgentSession, tools: list[str]) -> dict[str, Any]:
    return {"type": "init", "session_id": s.session_id, "model": s.info.name, "provider": s.info.provider,
            "window": s.cm.limits.window, "threshold": s.cm.limits.threshold, "cwd": str(s.cwd),
            "permission_mode": s.permissions.mode, "tools": tools, "resumed": bool(s.messages)}
