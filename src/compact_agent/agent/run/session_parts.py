"""What the pieces around a session read of it: the session's parts, as a protocol.

The extensions (hooks, plan, MCP, ledger) and the window check are built by the session runner and
read the session back; typed against this protocol rather than `AgentSession`, they need nothing
from runner.py, so the runner imports them and not the other way round.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

if TYPE_CHECKING:
    from pydantic_ai import Agent

    from ...config import Settings
    from ...context import ContextManager
    from ...models import ModelInfo
    from ...session.store import SessionStore
    from ..tools.base import ToolEnv


class SessionParts(Protocol):
    """The parts of a live session (`AgentSession`) its helpers read; read-only here."""

    @property
    def settings(self) -> Settings: ...
    @property
    def cwd(self) -> Path: ...
    @property
    def session_id(self) -> str: ...
    @property
    def store(self) -> SessionStore: ...
    @property
    def info(self) -> ModelInfo: ...
    @property
    def warnings(self) -> list[str]: ...
    @property
    def cm(self) -> ContextManager: ...
    @property
    def env(self) -> ToolEnv: ...
    @property
    def agent(self) -> Agent[Any, Any]: ...

    def system_prompt(self) -> str: ...
