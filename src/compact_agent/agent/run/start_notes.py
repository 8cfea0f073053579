"""What a session says once as it starts, beyond the load's own warnings: a buffer given that the
window cannot hold, and where the window came from (for the error that says it is too small). Apart
from runner.py, which wires the session and calls these once from `__init__`: each reads the
session's settings and their sources, and none of it is wiring."""

from __future__ import annotations

from typing import TYPE_CHECKING, Protocol

from .session_parts import SessionParts

if TYPE_CHECKING:
    from ...config import Limits
    from .options import SessionOptions


class Starting(SessionParts, Protocol):
    """What the notes read of the session (runner.py's `AgentSession`) as it starts."""

    @property
    def opts(self) -> SessionOptions: ...
    @property
    def limits(self) -> Limits: ...


def buffer_note(session: Starting) -> str | None:
    """A buffer given that the window cannot hold, said once at start (settings_checks.py)."""
    from ...settings_checks import buffer_note

    config, settings = session.opts.config, session.settings
    if (config.sources.get("autocompact_buffer", "default") == "default" if config is not None
            else settings.autocompact_buffer == type(settings).model_fields["autocompact_buffer"].default):
        return None  # the default: a tenth of a smaller window is what it means
    where = config.where("autocompact_buffer") if config is not None else "the settings"
    lim = session.limits
    return buffer_note(settings.autocompact_buffer, lim.buffer, lim.window, lim.threshold, where)


def window_setting(session: Starting) -> str:
    """Where the window came from, for the error that says it is too small."""
    if session.opts.context_window:  # given, or remembered by the session (`-c` with no flag)
        from ...session.remembered import named

        return named("context_window", "--context-window")
    if session.settings.context_window:
        return "context_window in " + (session.opts.config.where("context_window") if session.opts.config
                                       else "a config file")
    return f"{session.info.name}'s window; give a larger one with --context-window"
