"""/model: which model the session runs, and the switch to another (or to a new window).

    /model                   the model in use, and the known models
    /model NAME [--window N] switch: NAME checked against the --base-url server's list, a compaction
                             first when the new window is smaller, Esc or Ctrl-C stopping it

Registered into the slash-command table from here (commands.py imports this module); the switch
itself is agent/run/model_switch.py, the server's list agent/run/served_models.py.
"""

from __future__ import annotations

import shlex
from collections.abc import Coroutine
from typing import TYPE_CHECKING, Any, TypeVar

from rich.console import Console
from rich.table import Table

from ..agent.run.model_switch import switch_model
from ..agent.run.runner import AgentSession
from ..cli_numbers import MAX_WINDOW, parse_tokens
from ..secrets import redact
from . import render
from .command_registry import CommandError, command, current_repl

if TYPE_CHECKING:
    from .work_keys import WorkKeys

T = TypeVar("T")

MODEL_USAGE = "usage: /model [NAME] [--window N]"


def model_args(args: str) -> tuple[str | None, int | None] | str:
    """(model name, window) of `/model [NAME] [--window N]`, each None when not given; or the
    one-line error to show."""
    try:
        words = shlex.split(args) if args.strip() else []
    except ValueError as e:  # an unclosed quote
        return f"cannot read the arguments ({e}); {MODEL_USAGE}"
    names: list[str] = []
    window: int | None = None
    i = 0
    while i < len(words):
        w = words[i]
        if w == "--window" or w.startswith("--window="):
            value = w.partition("=")[2] if "=" in w else (words[i + 1] if i + 1 < len(words) else "")
            i += 1 if "=" in w else 2
            try:  # as --context-window and the config take it: 64000, 64,000, 64k, 128K
                number: int | None = parse_tokens(value, least=0, most=10**18)
            except ValueError:
                number = None
            if window is not None or number is None:
                return f"--window takes one number of tokens (--window 64000 or 64k); {MODEL_USAGE}"
            window = number
            if not 1 <= window <= MAX_WINDOW:  # one too small for the tools: the switch says its minimum
                return f"--window must be {'a positive number of' if window < 1 else f'at most {MAX_WINDOW:,}'} tokens"
            continue
        if w.startswith("-"):
            return f"unknown option {w} for /model; {MODEL_USAGE}"
        names.append(w)
        i += 1
    if len(names) > 1:
        return f"/model takes one model name; not understood: {' '.join(names[1:])} ({MODEL_USAGE})"
    if names and not names[0].strip():
        return f"a model name cannot be empty; {MODEL_USAGE}"
    return (names[0] if names else None), window


@command("model", "show or switch the model: /model [NAME] [--window N] (no NAME: this model with a new window; "
                  "compacts first if the new window is smaller)")
async def _model(s: AgentSession, args: str, c: Console) -> None:
    parsed = model_args(args)
    if isinstance(parsed, str):
        raise CommandError(parsed)
    name, window = parsed
    if name is None and window is None:
        from ..models import REGISTRY

        lim = s.cm.limits
        c.print(f"now: {redact(s.info.name)} ({render.served_by(s.info.provider, s.opts.base_url, url=False)}) · window {lim.window:,} · auto-compaction at {lim.threshold:,}")
        t = Table.grid(padding=(0, 2))
        for col in ("mark", "model", "provider", "window", "price"):
            t.add_column(col, justify="right" if col == "window" else "left", no_wrap=col != "price")
        for info in REGISTRY.values():
            t.add_row("●" if info.name == s.info.name else " ", info.name, info.provider, f"{info.window:,}",
                      f"${info.input:g} in / ${info.output:g} out per M tokens")
        c.print(t)
        c.print(f"switch with /model NAME [--window N]; {where_names_go(s.opts.base_url)}", style="dim",
                markup=False, highlight=False)
        return
    name = name or s.info.name  # without a name the window is for the model in use: the same switch
    in_repl = current_repl() is not None  # else print mode: a run that ends with this command
    from ..agent.run.served_models import check_served
    from ..models import routing_note  # the note `-m NAME` gets: a likely typo, where it goes
    from ..secrets import shown_url

    work: WorkKeys | None = getattr(current_repl(), "work", None)  # the REPL's spinner and keys
    # A name the server lists no model by is refused in one line, before any note; a list that could
    # not be read is said, and the switch goes on. It is waited for as the switch is (`_waited`).
    asking = f"asking {shown_url(s.opts.base_url or '')} for its models"
    if (unread := await _waited(work, c, check_served(s, name), asking)) is None:
        return
    routing = routing_note(name, s.opts.base_url, window or s.opts.context_window or s.settings.context_window,
                           f"/model {name} --window N")
    for note in (unread, routing):
        if note:
            c.print(f"note: {redact(note)}", style="yellow", markup=False, highlight=False)
    before = s.cm.limits.window  # what `/model --window N` changes, said as a change
    # A switch for one print-mode run sends nothing after it: the saved history is not compacted for it.
    switching = switch_model(s, name, window, remember=in_repl, compact=in_repl)
    feed = getattr(current_repl(), "feed", None)  # the REPL's: it holds the compaction's line for after the switch's
    if feed is not None:
        feed.switching = True
    try:
        sw = await _waited(work, c, switching, f"switching to {redact(name)}")
    finally:
        if feed is not None:
            feed.switching = False
    if sw is None:
        return
    if in_repl and work is not None:  # what a session `/clear` starts next runs with: said here, as a task's
        from ..session import remembered  # context is its own

        remembered.switched(s.store.options())
    shaped = "" if sw.context is None else \
        f" · context {sw.context[0]:,} → {sw.context[1]:,} tokens as the view layers shape it for this window"
    c.print(f"{switched(sw.old, sw.new, before, sw.window)}{shaped} · auto-compaction at {sw.threshold:,}",
            markup=False, highlight=False)
    if feed is not None and (sw.compaction is not None or sw.context is not None):
        # What the layers leave out of the next request for the new window, at once (`foretell`: the
        # figure above dropped by it; said from that request's event, the line came after the next
        # turn), with or without a compaction, then the compaction's line.
        feed.foretell()
        feed.say_switched()
    if sw.compaction is not None:  # after the line that says why, as /compact says it: its line, then the archive
        if feed is None:
            c.print(render.compact_line(sw.compaction.event), markup=False, highlight=False, soft_wrap=True)
        if sw.compaction.archive is not None:  # a path, whole
            c.print(render.archived_at(sw.compaction.archive), markup=False, highlight=False, soft_wrap=True)
        if sw.summary_failed is not None:  # the old model wrote none: a record of the steps stands in for it
            c.print(f"{sw.summary_failed}, so the compaction is a record of the steps written without a model",
                    markup=False, highlight=False)
    if not in_repl:
        c.print(not_remembered(s, sw.new, window), soft_wrap=True)  # a command line to copy: whole
    if sw.uncompacted is not None:
        c.print(f"not compacted: the context ({sw.uncompacted:,} tokens) is over the {sw.threshold:,} at which this "
                "window compacts, but this run ends here and sends nothing to the model: the session keeps its "
                "history as it was, and a run that goes on with the switch compacts it first",
                markup=False, highlight=False, soft_wrap=True)


async def _waited(work: WorkKeys | None, c: Console, coro: Coroutine[Any, Any, T], doing: str) -> T | None:
    """`coro` under a spinner saying `doing…`: in the REPL as a turn, Esc or Ctrl-C stopping it (None,
    said with `not switched`; Ctrl-C ended the whole REPL), whether it asks the server for its list
    or makes the compaction a smaller window needs; in print mode under a status line."""
    if work is None:
        with c.status(f"{doing}…"):
            return await coro
    from .turn_view import TurnView

    done = await work.interruptible(coro, TurnView(c, lambda: 0), doing)
    if done is None:
        c.print("not switched; nothing was changed", markup=False, highlight=False)
    return done


def switched(old: str, new: str, before: int, window: int) -> str:
    """What a switch changed: the model (`model a → b · window N`), or, the model staying, its
    window (`/model --window 9k` said `model fake-model → fake-model`), or nothing. A name is as the
    user typed it, the key pasted in its place too: that is said `[REDACTED]`, as everywhere."""
    old, new = redact(old), redact(new)
    if old != new:
        return f"model {old} → {new} · window {window:,}"
    if before != window:
        return f"window {before:,} → {window:,} · model {new}, as it was"
    return f"model {new} and window {window:,}, as they were"


def where_names_go(base_url: str | None) -> str:
    """Where `/model NAME` sends a name, as models.provider_for routes it: with --base-url every
    name, those listed too, goes to that endpoint; without it a name not listed goes to OpenAI,
    or by its start to Anthropic or DeepSeek. The list said 'any other name goes to the
    OpenAI-compatible endpoint (--base-url)' in both cases."""
    from ..secrets import shown_url

    if base_url:
        return f"every name goes to {shown_url(base_url)} (--base-url), those listed too"
    return ("another name goes to OpenAI, or to Anthropic or DeepSeek when it starts with claude or deepseek "
            "(--base-url sends every name to an OpenAI-compatible server)")


def not_remembered(s: AgentSession, name: str, window: int | None) -> str:
    """`-p "/model NAME"` switches only the run it ends: a one-shot command that prints does not
    change what the session goes on with (`-c` after it ran the other model); said, with the
    command line that does."""
    flags = f"--model {shlex.quote(redact(name))}" + (f" --context-window {window}" if window else "")
    again = f"compact-agent -r {s.session_id} {flags}" if s.store.path.exists() else f"compact-agent {flags}"
    return f"for this run only: the session does not remember a switch made with -p (to go on with it: {again})"
