"""The interactive loop: prompt, stream the answer, show compactions, interrupt with Ctrl-C."""

from __future__ import annotations

import asyncio
import contextlib
import signal

from prompt_toolkit import PromptSession
from prompt_toolkit.history import FileHistory
from rich.console import Console

from ..agent.runner import AgentSession, SessionOptions
from ..agent.stream_events import problem_line
from ..agent.todos import TodoItem
from ..cli import describe_error
from ..context.events import Event
from ..session.store import ensure_private_file
from . import render
from .commands import ExitRepl, dispatch
from .session_views import render_plan


def _ask(console: Console):  # noqa: ANN202 - returns the permission callback
    def ask(tool: str, detail: str) -> str:
        console.print(f"[bold]{tool}[/bold] wants to run: {detail[:300]}")
        what = "this exact command" if tool == "bash" else "this file"
        # The prompt blocks the event loop, whose SIGINT handler (cancel the turn) cannot run until
        # it returns: Ctrl-C would only echo ^C. Here Ctrl-C interrupts the prompt and the turn.
        previous = signal.signal(signal.SIGINT, signal.default_int_handler)
        try:
            answer = console.input(f"allow? [y]es once / [a]lways {what} this session / [n]o: ").strip().lower()
        except KeyboardInterrupt:
            raise asyncio.CancelledError from None  # the turn ends as interrupted, the REPL goes on
        finally:
            signal.signal(signal.SIGINT, previous)
        return {"y": "once", "yes": "once", "a": "always", "always": "always"}.get(answer, "deny")
    return ask


async def run_repl(opts: SessionOptions) -> None:
    console = render.make_console()
    status = {"spinner": None}

    def on_compact_start(trigger: str, tokens: int) -> None:
        sp = console.status(f"compacting ({trigger}) {tokens:,} tokens…")
        sp.start()
        status["spinner"] = sp

    def on_event(ev: Event) -> None:
        if ev.layer == "compact":
            sp = status.pop("spinner", None)
            if sp is not None:
                sp.stop()
            status["spinner"] = None
            console.print(f"[dim]{render.compact_line(ev)}[/dim]")
        elif (problem := problem_line(ev)) is not None:
            console.print(problem, style="yellow", markup=False, highlight=False)
        elif ev.tokens_freed:
            console.print(f"[dim]{render.layer_line(ev)}[/dim]")

    def on_change(tool: str, info: dict) -> None:
        if tool == "todo_write":
            console.print(render_plan([TodoItem.model_validate(t) for t in info.get("todos", [])]), end="")
        else:
            console.print(f"[dim]{tool}: {info.get('path', '')}[/dim]")

    opts.ask = _ask(console)
    session = AgentSession(opts, on_event=on_event, on_compact_start=on_compact_start, on_change=on_change)
    for w in session.warnings:
        console.print(f"[yellow]warning: {w}[/yellow]")
    console.print(f"compact-agent · {session.info.name} · session {session.session_id} · /help for commands")
    history_file = ensure_private_file(session.store.dir / "prompt_history")  # all the user typed: 0600
    prompt = PromptSession(history=FileHistory(str(history_file)))
    try:
        while True:
            try:
                line = await prompt.prompt_async("› ")
            except KeyboardInterrupt:
                continue
            except EOFError:
                break
            line = line.strip()
            if not line:
                continue
            try:
                if line.startswith("/"):
                    await dispatch(session, line, console)
                    continue
                await _run_interruptible(session, line, console)
            except ExitRepl:
                break
            except Exception as e:  # noqa: BLE001 - one line, then back to the prompt
                console.print(f"[red]{describe_error(e)}[/red]")
    finally:
        await session.aclose()


async def _run_interruptible(session: AgentSession, line: str, console: Console) -> None:
    """Run one turn; Ctrl-C cancels the turn (the session keeps what was saved), not the REPL."""
    loop = asyncio.get_running_loop()
    task = asyncio.ensure_future(session.run_turn(line, on_text=lambda t: console.out(t, end="")))
    with contextlib.suppress(NotImplementedError, RuntimeError):
        loop.add_signal_handler(signal.SIGINT, task.cancel)
    try:
        await task
        console.print()
    except asyncio.CancelledError:
        console.print("\n[yellow]interrupted[/yellow]")
    finally:
        with contextlib.suppress(NotImplementedError, RuntimeError):
            loop.remove_signal_handler(signal.SIGINT)
