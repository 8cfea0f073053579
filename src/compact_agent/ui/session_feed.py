"""What the REPL's session reports while it works, on the terminal: a compaction (its spinner, then
its line), the layers' savings worth saying (one line per kind for a turn, layer_tally.py), a
problem, the plan the model wrote.

The session calls these from inside a turn, a command or its own start; a turn's spinner is up
then (the REPL's TurnView, `view`), so each stops it before printing and brings it back after.
Nothing here imports pydantic-ai: the REPL module loads without it (repl_start.py).
"""

from __future__ import annotations

import contextlib
import json
from collections.abc import Callable
from dataclasses import replace
from typing import TYPE_CHECKING, Any

from rich.console import Console

from . import cells, render
from .layer_tally import LayerTally
from .visible import visible

if TYPE_CHECKING:
    from ..agent.run.runner import AgentSession
    from ..context.plumbing.events import Event
    from .turn_view import TurnView


class SessionFeed:
    """The session's callbacks (`on_event`, `on_compact_start`, `on_change`) for one REPL."""

    def __init__(self, console: Console, view: Callable[[], TurnView | None], window: Callable[[], int],
                 session: Callable[[], AgentSession | None] = lambda: None) -> None:
        self.console = console
        self._session = session  # for where a window the server turned out smaller than came from
        self._view = view  # the turn's spinner, while one runs
        self._window = window  # the session's window (0 before it is built)
        self.compact_status: Any = None  # a compaction's spinner outside a turn (/compact, `-c` start)
        self.held = LayerTally()  # savings decided outside a turn, said when the next one starts
        self.gathered = LayerTally()  # a turn's (or a command's) savings, said as it ends
        self.after: list[str] = []  # a window learned from a reply: said after the turn's answer, not in it
        #: what the MCP servers' start says while they connect in the background (repl_building.count_tools)
        #: and no turn runs: printed above the prompt (printed as it came, it went into its input line)
        self.aside: Callable[[str], None] | None = None
        self._doing = "thinking"  # what a spinner said before it said it waits for MCP servers
        #: `/model … --window N` runs (model_command.py): a compaction is for the new window, and its
        #: line waits (`switched`) to come after the line saying why (`say_switched`)
        self.switching = False
        self.switched: list[Event] = []
        self.told = Foretold()  # what a turn's end said the next request frees (`foretell`)

    @property
    def foretold(self) -> dict[tuple[str, str], int]:
        return self.told.said

    @foretold.setter
    def foretold(self, said: dict[tuple[str, str], int]) -> None:
        self.told.said = said

    def on_compact_start(self, trigger: str, tokens: int) -> None:
        view = self._view()
        doing = f"compacting {tokens:,} tokens to fit the {self._window():,}-token window" if self.switching \
            else f"compacting ({trigger}) {tokens:,} tokens"
        if view is not None:
            view.stop()
            view._spin(doing)
            return
        if self.console.is_terminal:
            self.compact_status = self.console.status(f"{doing}…")
            self.compact_status.start()

    def on_event(self, ev: Event) -> None:
        view = self._view()
        if ev.layer == "mcp":
            self._waiting(ev, view)
        self.told.compacted(ev)
        if ev.layer == "compact" and ev.detail.get("switched_window") is not None:
            # Made by a switch to a smaller window: said after the switch's line, which says why, with
            # what the layers left out for that window before it (`say_switched`). Said as it came, it
            # stood above that line, as if it had come first and of itself.
            self.switched.append(ev)
            if self.compact_status is not None:
                self.compact_status.stop()
                self.compact_status = None
            if view is not None:
                view._spin("thinking")
        elif ev.layer == "compact":
            self.stop_status()
            if view is not None:
                view.stop()
            self.say_gathered()  # what the layers freed before it, above its line
            # /compact says its block itself; a paused compaction tried again that failed again was said (`retry`)
            if not (ev.action == "blocked" and ev.trigger == "manual") and not ev.detail.get("retry"):
                self.console.print(render.compact_line(ev), style="yellow" if ev.action == "blocked" else "dim")
            if (archived := render.archive_line(ev)) is not None:  # a path, whole (not wrapped by rich)
                self.console.print(archived, style="dim", markup=False, highlight=False, soft_wrap=True)
            if view is not None:
                view._spin("thinking")
        elif (problem := _problem_line(ev, self._session())) is not None:
            if ev.layer == "mcp" and self.aside is not None and view is None:
                self.aside(problem)
            elif view is not None and (ev.trigger == "cut" or ev.action == "forgotten"):  # from the reply written out now
                self.after.append(problem)
            else:  # a server's line names where to check, `[mcp_servers.NAME]`: not markup
                self.console.print(problem, style="yellow", markup=ev.layer != "mcp")
        elif ev.tokens_freed and render.layer_line(ev) is not None and (
                news := self.told.news(ev, self._session())) is not None:
            s = self._session()
            # Decided between turns (the toolbar's measure): said in the turn it shapes. In a turn:
            # said as it ends, one line per kind (a file read again, one request at a time, was a
            # line each); a kind's saving under a hundredth of the window is not said. What a turn's
            # end said of it already (`foretell`) is not said again.
            (self.held if view is None else self.gathered).add(news, s.messages if s else [], s.cwd if s else None)

    def _waiting(self, ev: Event, view: TurnView | None) -> None:
        """A turn or command that waits for the MCP servers still starting says which: a message sent
        meanwhile showed `thinking…` as long as a slow server took, a /mcp nothing at all. The
        spinner counts them down as they answer, then says `thinking` again."""
        s = self._session()
        names = [str(n) for n in ev.detail.get("servers", [])] if ev.action == "waiting" else (
            s.ext.waiting_for() if s is not None else [])
        if ev.action == "waiting" and view is None:
            self.console.print(f"{waiting_words(names)}…", style="dim", markup=False, highlight=False)
        elif view is not None and (ev.action == "waiting" or view.label.doing.startswith(WAITING)):
            if not view.label.doing.startswith(WAITING):
                self._doing = view.label.doing  # `thinking`, `compacting …`: said again once they answered
            view._spin(waiting_words(names) if names else self._doing)

    def on_retry(self, said: str) -> None:
        """The provider's SDK waits to send a failed request again (retry_notice.py): said under the
        turn as it waits, the spinner back after it (it read `thinking… 40s` through a rate limit)."""
        view = self._view()
        if view is not None:
            view.stop()
        self.console.print(said, style="yellow", markup=False, highlight=False)
        if view is not None:
            view._spin(view.label.doing)

    def say_held(self) -> None:
        """At a turn's start, after its prompt: the layers' savings decided since the last turn.
        A layer decides when the context is measured, also for the toolbar under the next prompt;
        printed then, the line stood above that prompt, read as the end of the turn before."""
        for line in self.held.lines(self._window()):
            self.console.print(line, style="dim")

    def say_switched(self) -> None:
        """After `/model … --window N` said what it changed: what the layers left out for the new window,
        then the compaction it needed (`switched`), as `on_event` says every other."""
        self.say_gathered()
        for ev in self.switched:
            self.console.print(render.compact_line(ev), style="dim")
        self.switched.clear()

    def say_gathered(self) -> None:
        """What the layers freed in the turn or command so far, one line per kind (layer_tally.py)."""
        for line in self.gathered.lines(self._window()):
            self.console.print(line, style="dim")

    def say_after(self) -> None:
        """At a turn's end: what the layers freed in it, and what they will free from the next request
        (`foretell`), then the server's window learned from one of its replies. Said when it was
        learned, the line stood inside the answer the REPL was still writing out."""
        self.foretell()
        self.say_gathered()
        self.told.keep(self._session())
        for line in self.after:
            self.console.print(line, style="yellow")
        self.after.clear()

    def foretell(self) -> None:
        """Count in the turn's tally what the layers will free from the next request, decided by the
        look that shapes the toolbar's figure (shaping.foreseen): the model has now seen the results
        they clear or fold. Said only from that request's event, the line came a turn after the
        figure under the prompt had dropped (`context 2.5k` then `1.3k`, nothing said why). That
        request's event is then not said again (`Foretold.news`)."""
        s = self._session()
        if s is None:
            return
        self.told.read(s)
        try:
            from ..context.shaping import foreseen  # late: the REPL starts before pydantic-ai loads

            events = foreseen(s.cm, list(s.messages))
        except Exception:  # noqa: BLE001 - a look at the next request must never break the REPL
            return
        for ev in events:
            if not ev.tokens_freed or render.layer_line(ev) is None or (
                    new := self.told.news(ev, s, take=False)) is None:  # a turn's end said it, and no request made it yet
                continue
            for i in new.ids:
                self.foretold[(ev.layer, i)] = new.tokens_freed // len(new.ids)
            if not new.ids:
                self.foretold[(ev.layer, "")] = self.foretold.get((ev.layer, ""), 0) + new.tokens_freed
            self.gathered.add(new, s.messages, s.cwd)

    def on_change(self, tool: str, info: dict[str, Any]) -> None:
        if "instruction" in info:  # an instruction file written without a question (permissions.py)
            from ..agent.safety.permissions import INSTRUCTION_MARK, changed_note

            view = self._view()
            if view is not None:
                view.stop()
            said = visible(f"{INSTRUCTION_MARK} {changed_note(tool, info['instruction'], info['unasked'], info.get('custom_command'))}")
            lines = cells.wrap(said, max(20, self.console.width - 3), indent="  ")  # under its own words
            self.console.print("\n".join("  " + line for line in lines), style="bold yellow", markup=False,
                               highlight=False, soft_wrap=True)
        if tool == "todo_write":
            from ..agent.tools.todos import TodoItem
            from .session_views import render_plan

            view = self._view()
            if view is not None:
                view.stop()
            self.console.print(render_plan([TodoItem.model_validate(t) for t in info.get("todos", [])]), end="")

    def stop_status(self) -> None:
        """Stop a compaction's spinner (before a question, or after a command whose compaction ended
        without its event); after a command, say what the layers freed in it."""
        if self._view() is None:
            self.say_gathered()
            self.say_switched()  # a switch that ended without saying its compaction (stopped after it)
        if self.compact_status is not None:
            self.compact_status.stop()
            self.compact_status = None


class Foretold:
    """What a turn's end said the next request frees (SessionFeed.foretell), so that request's event
    is not said again: by the REPL, and by a run that continues the session, `-c` in the REPL or in
    print mode (`-c -p … --verbose` said 'freed 1,240 tokens' of two results a REPL turn's end had)."""

    def __init__(self) -> None:
        #: (layer, call id) → its share of a saving said at a turn's end, before a request decided it;
        #: (layer, "") → the tokens said of the layer's decisions that name no result (a fold of
        #: rounds without tool calls)
        self.said: dict[tuple[str, str], int] = {}
        self._of: str | None = None  # the session `said` is of (read from its file once)

    def compacted(self, ev: Event) -> None:
        """A compaction made (one that failed or was blocked made none): the results said are gone,
        or kept to be decided afresh."""
        if ev.layer == "compact" and (ev.detail.get("switched_window") is not None
                                      or ev.action not in ("failed", "blocked")):
            self.said.clear()

    def news(self, ev: Event, s: AgentSession | None, *, take: bool = True) -> Event | None:
        """`ev` less what a turn's end said of it: None where it said it all; the results it did not
        name, and the saving less theirs, where it said a part. `take`: those said are taken off the
        list (`ev` is the request's event that made the decision). A decision that names no result
        (a fold of rounds without tool calls, made again with the request's own range) is said less
        the tokens said of the layer's such decisions. `s`: the session (its kept file read once)."""
        if s is not None:
            self.read(s)
        if not ev.ids:
            credit = self.said.get((ev.layer, ""), 0)
            used = min(credit, ev.tokens_freed)
            if take and used and credit > used:
                self.said[(ev.layer, "")] = credit - used
            elif take and used:
                del self.said[(ev.layer, "")]
            return ev if not used else None if used == ev.tokens_freed else replace(ev, freed=ev.tokens_freed - used)
        said = [i for i in ev.ids if (ev.layer, i) in self.said]
        if not said:
            return ev
        share = sum((self.said.pop if take else self.said.__getitem__)((ev.layer, i)) for i in said)
        if len(said) == len(ev.ids):
            return None
        return replace(ev, ids=[i for i in ev.ids if i not in said], freed=max(0, ev.tokens_freed - share))

    def read(self, s: AgentSession) -> None:
        """`said` of session `s`, as its last run's last turn left it (FORETOLD_FILE), once: a saving
        said at that turn's end is decided by the next request, the first of a run that continues
        the session (-c), which said it again, 'freed 1,240 tokens' twice for two results. Not where
        the history has changed since (a rewind, a compaction): its decisions are not those."""
        if self._of == s.store.session_id:
            return
        self._of, self.said = s.store.session_id, {}
        from ..regular_file import read_own  # a FIFO in its place is not waited on

        # None kept, or unreadable: said again.
        with contextlib.suppress(OSError, ValueError, KeyError, TypeError, RecursionError):
            kept = json.loads(read_own(s.store.dir / FORETOLD_FILE).decode("utf-8"))
            if kept["history"] == _history_mark(s.messages, kept["messages"]):
                self.said = {(str(layer), str(i)): int(tokens) for layer, i, tokens in kept["foretold"]}

    def keep(self, s: AgentSession | None) -> None:
        """At a turn's end: `said` written beside the session, for a run that continues it."""
        if s is None or (not self.said and not (s.store.dir / FORETOLD_FILE).exists()):
            return
        from ..session.files import atomic_write

        kept = {"messages": len(s.messages), "history": _history_mark(s.messages, len(s.messages)),
                "foretold": [[layer, i, tokens] for (layer, i), tokens in self.said.items()]}
        with contextlib.suppress(OSError):  # a line said twice, at worst
            atomic_write(s.store.dir / FORETOLD_FILE, json.dumps(kept).encode())


#: What a REPL's last turn said the next request frees, beside its session (`Foretold.read`).
FORETOLD_FILE = "foretold.json"


def _history_mark(messages: list[Any], count: int) -> str | None:
    """What tells the history a turn's end saw from another: its length, and its last message's
    time (None where it is not there)."""
    if not 0 < count <= len(messages):
        return None
    return f"{count} {getattr(messages[count - 1], 'timestamp', '')}"


def _problem_line(ev: Event, session: AgentSession | None) -> str | None:
    from ..agent.run.stream_events import problem_line, window_choice

    return problem_line(ev, window_choice(session))


WAITING = "waiting for MCP server"


def waiting_words(names: list[str]) -> str:
    """`waiting for MCP server slowsrv`, `waiting for MCP servers docs and search`."""
    if len(names) == 1:
        return f"{WAITING} {names[0]}"
    return f"{WAITING}s {', '.join(names[:-1])} and {names[-1]}"
