"""`/resume`'s switch: the session it picks is opened once, with the options it runs with.

What a session runs with is cli_resume.py's rule (an option given on this command line, else what
the session remembers, else the settings). The switch reads that from the session file, which
needs no pydantic-ai and no lock, and then opens the session with it: opened first with the options
of the session the REPL left and then again with its own, a session was read twice from disk (a
long one seconds apart) and its lock taken twice. Only when its own options cannot run it (a window
remembered too small for the tools) is it opened again, with those it had.

A session left (`/resume` to another, `/clear`) and opened again is opened afresh: what this run
compacted of it before is counted here (`leaving`, `compacted_this_run`), or /status said `0 since
this run began` of a session this run had compacted twice.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..agent.run.options import SessionOptions, resolve_session_id, session_root
from ..error_text import describe_error
from ..models import UsageError
from ..session import remembered
from ..session.files import SessionLocked
from ..session.locks import check_free, in_use_here

if TYPE_CHECKING:
    from ..agent.run.runner import AgentSession
    from ..cli_resume import SessionSettings

#: What `SessionSettings.apply` sets, so a switch that fails can put them back.
FIELDS = ("model", "base_url", "context_window", "append_system_prompt", "settings", "config")

#: By session id, the compactions this process made of a session before it left it (this run's).
_EARLIER: dict[str, int] = {}


def leaving(s: AgentSession) -> None:
    """`s` is about to be left or opened again (a switch, `/clear`): what it compacted is this run's."""
    if s.cm.compactions:
        _EARLIER[s.session_id] = _EARLIER.get(s.session_id, 0) + len(s.cm.compactions)


def compacted_this_run(s: AgentSession) -> int:
    """The compactions of `s`'s session since this run began, also those made before this run left
    it and came back (`/clear`, then `/resume` to it)."""
    return _EARLIER.get(s.session_id, 0) + len(s.cm.compactions)


def _switch_to(s: AgentSession, session_id: str) -> None:
    leaving(s)
    s.switch_to(session_id)


def switch(s: AgentSession, want: str, options_for: Callable[[Path], SessionSettings] | None) -> str | None:
    """Switch `s` to session `want` (an id or the start of one) with the options `options_for` says
    it runs with (None: those `s` has); the line that says what it now uses when that is another
    model, window or endpoint, or why it goes on with those it has. A session that names none or
    several, or that another process holds, is raised before anything changed."""
    root = session_root(s.cwd, s.opts.home)
    session_id, _ = resolve_session_id(SessionOptions(cwd=s.cwd, home=s.opts.home, session_id=want))
    if session_id != s.session_id:  # its own: this process holds it, and opens it again
        try:
            check_free(root, session_id)
        except SessionLocked:  # said as the REPL's: the CLI's words named --continue/--resume
            raise SessionLocked(in_use_here(session_id, s.session_id)) from None
    if options_for is None:
        _switch_to(s, session_id)
        return None
    before = (s.info.name, s.cm.limits.window, s.opts.base_url)
    try:
        settled = options_for(root / f"{session_id}.jsonl")
    except UsageError as e:
        _switch_to(s, session_id)
        return (f"session {s.session_id} remembers options that cannot be used ({e}); it goes on with "
                f"{uses(s, before)}")
    run, kept = remembered.this_run(), {name: getattr(s.opts, name) for name in FIELDS}
    remembered.from_now_on(settled.remember)  # what its store keeps when it opens
    try:
        settled.apply(s.opts)
        _switch_to(s, session_id)
    except Exception as e:  # noqa: BLE001 - one line, and the session with the options it had
        _restore(s, kept, run)
        _switch_to(s, session_id)
        return (f"could not run session {s.session_id} with {settled.name}{_as(settled)} "
                f"({describe_error(e)}); it goes on with {uses(s, before)}")
    note = settled.note  # a remembered endpoint this model does not go to
    if (s.info.name, s.cm.limits.window, s.opts.base_url) == before:
        return note
    return f"session {s.session_id} runs with {uses(s, before)}{_as(settled)}" + (f"; {note}" if note else "")


def _as(settled: SessionSettings) -> str:
    """`, as it last ran` where the session's own options (remembered, and changed by each `/model`
    switch) chose them: `as it was started` was said of a session switched to another model since."""
    return ", as it last ran" if settled.applied else ""


def _restore(s: AgentSession, kept: dict[str, Any], run: remembered.ToRemember | None) -> None:
    """The options and what this run remembers as they were before a switch that failed."""
    for name, value in kept.items():
        setattr(s.opts, name, value)
    remembered.from_now_on(run)


def uses(s: AgentSession, before: tuple[str, int, str | None]) -> str:
    """`deepseek-chat · window 16,000` (and the endpoint, when it is not the one before)."""
    from ..secrets import shown_url

    where = f" at {shown_url(s.opts.base_url)}" if s.opts.base_url and s.opts.base_url != before[2] else ""
    return f"{s.info.name}{where} · window {s.cm.limits.window:,}"
