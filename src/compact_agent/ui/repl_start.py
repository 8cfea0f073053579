"""What the REPL knows before its session exists, and what it loads while the prompt is up.

Building a session imports pydantic-ai, the provider's SDK and the agent (about 1.5 s on a small
machine); a user who has to wait that long for a prompt types into nothing. So the REPL prints
its banner from what is cheap to know (the model, its window, the session id; a missing API key,
an unknown `--resume` id or a session another process holds still stop it here, before the
prompt), shows the prompt at once, and builds the session meanwhile: the imports in a worker
thread (`preload`), the session itself on the event loop once they are done. A line entered
before then waits for it.
"""

from __future__ import annotations

import importlib
from dataclasses import dataclass

from ..agent.run.options import SessionOptions, resolve_session_id

#: What the REPL's first turn and commands need: imported in the worker thread, not on the loop.
MODULES = (
    "compact_agent.agent.run.runner",
    "compact_agent.agent.run.stream_events",
    "compact_agent.agent.tools.todos",
    "compact_agent.agent.accounting.context_report",
    "compact_agent.ui.commands",  # registers every slash command (more_commands, session_views)
    "compact_agent.ui.history_view",
)


@dataclass(frozen=True)
class Start:
    """The banner's facts, known without building the session."""

    name: str
    window: int
    session_id: str
    exists: bool  # resuming a session file (`-c`, `-r ID`)
    #: The window is the one taken for a model this version does not know, none given nor learned for
    #: it: said so, as the server may hold less (or more); it reports or refuses, and the session learns it.
    assumed: bool = False

    @classmethod
    def of(cls, opts: SessionOptions) -> Start:
        """Raises ConfigError (no API key), FileNotFoundError (an unknown `--resume` id) or
        SessionLocked (`-c` or `-r ID` of a session another process holds) as the session would,
        before anything else is shown."""
        from ..agent.run.options import session_root
        from ..models import REGISTRY, api_key_for, model_info, provider_for
        from ..session.locks import check_free

        info = model_info(opts.model, provider=provider_for(opts.model, opts.base_url),
                          window=opts.context_window or opts.settings.context_window)
        if opts.model_override is None:
            api_key_for(opts.model, opts.base_url, opts.api_key)
        session_id, exists = resolve_session_id(opts)
        if exists:
            check_free(session_root(opts.cwd, opts.home), session_id)
        from ..agent.run.server_windows import banner_window

        side = session_root(opts.cwd, opts.home) / session_id if exists else None
        window, own = banner_window(opts, info, side)  # the model's: for one the registry lacks, assumed
        return cls(info.name, window, session_id, exists, assumed=own and info.name not in REGISTRY)

    def banner(self, width: int) -> str:
        """`compact-agent · MODEL · window 32,768 · session ID · /help for commands`, within `width`
        columns: narrower, without the session id (/status has it), and then in lines broken
        between its items. At 60 columns the terminal broke it inside `/help for` / `commands`.
        An assumed window says so (`window 32,768 (assumed)`): shown bare, a local model's looked known."""
        from .approval import wrap_items

        window = f"window {self.window:,}" + (" (assumed)" if self.assumed else "")
        parts = ["compact-agent", self.name, window, f"session {self.session_id}", "/help for commands"]
        if len(" · ".join(parts)) > width - 1:  # the last column: a terminal may wrap there by itself
            parts.remove(f"session {self.session_id}")
        return "\n".join(wrap_items(parts, width - 1, " · "))


def preload(opts: SessionOptions) -> None:
    """The slow imports of building a session, for a worker thread."""
    from ..models import preload as preload_provider

    for name in MODULES:
        importlib.import_module(name)
    if opts.model_override is None:
        preload_provider(opts.model, opts.base_url)
