"""The models a session makes beside its main one, for the requests it sends for itself: the summary
model (`summary_model`, built once per name) and the session notes with their own model
(`memory_model`), each wired as the main model is to the servers that want user messages joined
(`side_model`), and the HTTP limits every model of the session is built with. Apart from
runner.py so that what a side request runs on is found by name; the summarizer that sends the
summary request stays with the session's wiring (runner.py), which hands it to the library."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Protocol

from ...config import Settings
from ...context import SessionMemory
from ...models import build_model, model_info, provider_for
from . import server_turns
from .session_parts import SessionParts

if TYPE_CHECKING:
    from pydantic_ai.models import Model

    from .options import SessionOptions


class Sided(SessionParts, Protocol):
    """What the side models read of the session (runner.py's `AgentSession`), and the summary model
    it keeps once built."""

    summary_cache: tuple[str, Model]

    @property
    def opts(self) -> SessionOptions: ...
    @property
    def model(self) -> Model: ...


def http_limits(settings: Settings) -> dict[str, Any]:
    return {"max_retries": settings.max_retries, "timeout_s": settings.request_timeout_s}


def side_model(session: Sided, name: str) -> Model:
    """Model `name` for the session's own requests, at the session's server, wired as its main model
    is to what the agent keeps of that server and model (server_turns.py): user messages joined from
    its first request where an earlier run learned to, and kept when it learns it."""
    opts = session.opts
    model = build_model(name, base_url=opts.base_url, api_key=opts.api_key, **http_limits(session.settings))
    server_turns.wire(model, opts, model_info(name, provider=provider_for(name, opts.base_url)))
    return model


def summary_model(session: Sided) -> Model:
    """`summary_model` if configured (its own cache, no shared prefix), else the main model."""
    name = session.settings.summary_model
    if not name or name == session.info.name:
        return session.model
    if getattr(session, "summary_cache", (None,))[0] != name:
        session.summary_cache = (name, side_model(session, name))
    return session.summary_cache[1]


def session_memory(session: Sided) -> SessionMemory | None:
    """Notes beside the session file, so they survive restarts and `--continue`."""
    settings = session.settings
    if not settings.memory_enabled:
        return None
    notes_model = None
    if settings.memory_model:
        notes_model = side_model(session, settings.memory_model)
    return SessionMemory(session.store.dir / "notes.md", settings.compaction(), model=session.model,
                         notes_model=notes_model)
