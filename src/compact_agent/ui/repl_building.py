"""The REPL's session while it is being built: what was typed before the first prompt, a message
saved the moment it is entered (before the session exists, in the first seconds), the build itself
on the event loop once repl_start.py's imports are done, and a line that waits for it. Apart from
repl.py, which loops over the lines once the session is there: all of this is about the first
seconds, and all of it must hold when the build fails (a window too small, a locked session) or the
process is killed meanwhile."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, Protocol

from .. import secrets
from ..agent.run.options import session_root
from ..error_text import describe_error
from ..session import journal  # no pydantic-ai: a line typed while the session is built is saved at once
from ..session.files import SessionError
from ..session.prompt_history import Unsent, said_unsent
from .interrupt_keys import InterruptKeys
from .repl_start import Start, preload
from .toolbar import status_line
from .turn_view import TurnView
from .typeahead import began
from .visible import visible

if TYPE_CHECKING:
    from prompt_toolkit import PromptSession
    from rich.console import Console

    from ..agent.run.options import SessionOptions
    from ..agent.run.runner import AgentSession
    from .pastes import Pastes
    from .session_feed import SessionFeed
    from .work_keys import WorkKeys


class Building(Protocol):
    """What the build reads and sets of the REPL (repl.py's `Repl`)."""

    session: AgentSession | None
    early: str | None  # the entry of a line saved before the session was built
    status_text: str
    #: the build printed what the session brings under a line entered before it was there (the
    #: line waits for it, the prompt is down): the line is shown again under it (repl.py)
    shown_under_line: bool

    @property
    def opts(self) -> SessionOptions: ...
    @property
    def console(self) -> Console: ...
    @property
    def start(self) -> Start | None: ...
    @property
    def feed(self) -> SessionFeed: ...
    @property
    def prompt(self) -> PromptSession[str] | None: ...
    @property
    def starting(self) -> asyncio.Future[None] | None: ...
    @property
    def work(self) -> WorkKeys: ...
    @property
    def clock(self) -> Callable[[], float]: ...
    @property
    def pastes(self) -> Pastes: ...

    def session_id(self) -> str | None: ...

    async def above_prompt(self, show: Callable[[], Any]) -> None: ...


def typed_while_starting(r: Building, started: float | None) -> None:
    """Keys typed before the first prompt, read as during a turn: each line ended with Enter
    sent in order, the rest in the prompt. Left for the prompt, they came in one read, taken for
    a paste: the lines were joined into one. They piled up unread since the program started (or
    `started`), a person's typing as long as no more than a fast typist types in that time
    (typed_ahead.py). From now on each line typed ahead is saved as Enter ends it (`keep_ahead`)."""
    keys = r.work.keys
    assert keys is not None
    keep_ahead(r, keys)
    since = started if started is not None else began()
    if since is not None:
        keys.heard = since
    keys.esc_stops = False  # nothing to stop yet: an Esc among them is no reason to drop the rest
    keys.start()
    try:
        keys.catch_up()
    finally:
        keys.stop()
        keys.esc_stops = True


def keep_ahead(r: Building, keys: InterruptKeys) -> None:
    """A line typed ahead (during a turn, a command, the first seconds) is saved the moment Enter
    ends it, fsynced: in the up-arrow history, and in the session's folder until it is taken to be
    sent (typed_ahead.Unsent), when it is saved as a typed message is (`keep_typed`). It was kept
    in memory only: a closed terminal or a kill before the turn ended lost it. What an earlier run
    of the session left there is taken first, for the build to say (`left_ahead`)."""
    root = session_root(r.opts.cwd.resolve(), r.opts.home)
    left = Unsent.take_left(root / r.start.session_id) if r.start is not None and r.start.exists else []
    unsent = keys.ahead.unsent = Unsent(lambda: root / sid if (sid := r.session_id()) else None, left)

    def on_line(line: str) -> None:
        text = secrets.redact(r.pastes.expand(line))
        if r.prompt is not None:
            with contextlib.suppress(OSError):  # expands a paste's placeholder, redacts, fsyncs
                r.prompt.history.append_string(line)
        unsent.add(line, text)

    keys.ahead.on_line, keys.ahead.on_taken = on_line, unsent.drop


def left_ahead(r: Building) -> list[str]:
    """What the build says of the lines typed ahead in an earlier run of the session and never
    sent (`keep_ahead` took them), once."""
    keys = r.work.keys
    unsent = keys.ahead.unsent if keys is not None else None
    if unsent is None or not unsent.left:
        return []
    left, unsent.left = unsent.left, []
    return said_unsent(left)


def keep_typed(r: Building, message: str) -> None:
    """Save a message the moment it is entered, fsynced, before its turn (and, in the first
    seconds, before the session) exists: killed at any later instant, the REPL loses nothing the
    user typed, and `-c` shows it, unanswered. The turn's request names it (session/journal.py).
    Nothing is imported here: while the session's imports run in their thread, a new import
    could wait for them."""
    try:
        if r.session is not None:
            r.session.store.save_prompt(message)
        elif r.start is not None:
            r.early = journal.save_prompt_early(session_root(r.opts.cwd.resolve(), r.opts.home),
                                                r.start.session_id, message)
    except (OSError, SessionError) as e:  # the turn still saves it when it is sent
        r.console.print(f"warning: could not save the message before sending it: {describe_error(e)}",
                        style="yellow", soft_wrap=False)


def take_back(r: Building) -> None:
    """The session could not be built (a window too small for the system prompt): a line saved
    while it was being built is taken back, as print mode takes back its prompt (early_prompt.py).
    Nothing ran, so nothing stays: a session that line made goes, an earlier one it resumed keeps
    the history it had. (Killed while starting, the process never gets here: the line stays.)"""
    if r.early is None or r.start is None:
        return
    from ..early_prompt import Early, take_back

    take_back(r.opts, Early(r.start.session_id, r.start.exists, r.early))
    r.early = None


async def build(r: Building, start: Start) -> None:
    """Import, and ask a local server for its window, in a worker thread (the prompt stays
    responsive), then build the session on the loop and show what it brings (warnings, a resumed
    session's last exchanges) above the prompt."""
    await asyncio.to_thread(preload, r.opts)
    from ..agent.run.runner import AgentSession
    from ..agent.run.start_notes import ask_ahead

    await asyncio.to_thread(ask_ahead, r.opts)  # a local server's window: not on the loop the prompt runs on
    from .history_view import show_resumed

    s = AgentSession(r.opts, on_event=r.feed.on_event, on_compact_start=r.feed.on_compact_start,
                     on_change=r.feed.on_change, resolved=(start.session_id, start.exists))
    r.session = s
    ahead = left_ahead(r)
    if s.warnings or s.notes or s.messages or s.notices or ahead:
        def show() -> None:
            for line in s.notices:  # a window remembered from an earlier session (server_windows.py)
                r.console.print(line, style="yellow", markup=False, highlight=False)
            show_resumed(r.console, s.warnings, s.messages, s.notes, s.store)  # the answers rendered as they were
            for line in ahead:  # under the last exchanges, where it would have come
                r.console.print(visible(line), style="yellow", markup=False, highlight=False)

        r.shown_under_line = not (r.prompt is not None and r.prompt.app.is_running)
        await r.above_prompt(show)
    r.status_text = status_line(s)
    if r.prompt is not None and r.prompt.app.is_running:
        r.prompt.app.invalidate()
    if s.ext.mcp is not None:
        count_tools(r, s)


def count_tools(r: Building, s: AgentSession) -> None:
    """The MCP servers connected in the background while the prompt is up (it waits for nothing),
    then the manager told what the first request will carry (first_request.prepare): the toolbar
    counts the servers' tools before the first turn, as /context does; it left them out until a
    turn or a command connected them. A turn or a command from now on waits for this connection
    (SessionExtensions.connect_soon). What a server's start says (that it failed) is printed above
    the prompt, not into it, as soon as it is known: held until every server had answered, a broken
    server's line waited for a slow one."""
    said: list[str] = []

    def aside(line: str) -> None:
        said.append(line)
        if len(said) == 1:  # else the printing under way takes it too
            _keep(asyncio.ensure_future(_say(r, s, said)))

    r.feed.aside = aside
    _keep(asyncio.ensure_future(_counted(r, s, s.ext.connect_soon())))


_counting: set[asyncio.Future[None]] = set()  # the loop keeps no reference to a task of its own


def _keep(task: asyncio.Future[None]) -> None:
    _counting.add(task)
    task.add_done_callback(_counting.discard)


async def _say(r: Building, s: AgentSession, said: list[str]) -> None:
    def show() -> None:
        while said:
            line = said.pop(0)
            if not (s.ext.mcp is not None and s.ext.mcp.listed):  # a /mcp, typed meanwhile, lists it
                r.console.print(line, style="yellow", markup=False, highlight=False)

    await r.above_prompt(show)


async def _counted(r: Building, s: AgentSession, connecting: asyncio.Future[None] | None) -> None:
    from ..agent.run.first_request import prepare

    try:
        if connecting is not None:  # waited for here, not by `prepare`, which would say it waits
            await asyncio.wait([connecting])
        with contextlib.suppress(Exception):  # the toolbar stays as it was; the first turn says what fails
            await prepare(s)
    finally:
        r.feed.aside = None
    if r.session is s and r.prompt is not None and r.prompt.app.is_running:  # else the next prompt measures
        r.status_text = status_line(s)
        r.prompt.app.invalidate()


def built(r: Building, task: asyncio.Future[None]) -> None:
    """A session that could not be built (a window too small, a locked session) ends the prompt;
    `Repl.run` reports why."""
    if not task.cancelled() and task.exception() is not None and r.prompt is not None \
            and r.prompt.app.is_running:
        r.prompt.app.exit(exception=EOFError())


async def ready(r: Building) -> bool:
    """Wait for the session (a line entered while it is being built); False if it failed."""
    if r.starting is None:
        return False
    if not r.starting.done():  # Esc or Ctrl-C meanwhile stops the message waiting, not the REPL
        await r.work.wait(r.starting, TurnView(r.console, lambda: 0, clock=r.clock), "starting")
    return r.starting.exception() is None
