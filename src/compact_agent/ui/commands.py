"""Slash commands. Each handler gets the session, its argument string and the console.

A project's own commands (`.claude/commands/NAME.md`) are custom_commands.py's; `run_command` runs
one when no built-in command has its name."""

from __future__ import annotations

import itertools
from pathlib import Path

from rich.cells import cell_len
from rich.console import Console
from rich.text import Text

from .. import secrets
from ..agent.run.runner import AgentSession
from ..agent.safety.checked_open import workdir_gone
from ..context import breaker_retry
from ..session.archives import space_line
from ..words import plural
from . import render
from .approval import nothing
from .command_registry import (
    CommandError,
    ExitRepl,
    built_in,
    close_command,
    command,
    current_repl,
)
from .custom_commands import custom_command, custom_commands, run_custom


@command("status", "model, session, context used / threshold / window", takes_args=False)
async def _status(s: AgentSession, args: str, c: Console) -> None:
    from ..agent.accounting.context_report import picture
    from ..agent.run.first_request import prepare

    await prepare(s)  # before this run's first request: what it will send, as /context counts it
    await s.ext.mcp_tools_now()  # a server's list changed since the last request: its count as it is now
    pic = picture(s)
    used = pic.used  # the figure /context shows: system prompt and tools included
    lim = s.cm.limits
    model = f"{s.info.name} ({render.served_by(s.info.provider, s.opts.base_url, url=False)})"
    session = s.session_id + _not_saved(s)
    if cell_len(beside := f"{model}   session {session}") <= c.width - LABEL_WIDTH - 1:
        _row(c, "model", beside)
    else:  # on a row of its own: wrapped, 'session' ended the model's row and the id went on under it
        _row(c, "model", model)
        _row(c, "session", session)
    if (where := _endpoint(s)) is not None:  # on a row of its own: beside the model it pushed the id to a second line
        _row(c, "endpoint", where)
    if (gone := workdir_gone(s.cwd)) is not None:  # moved or deleted meanwhile: every tool refuses, and says so
        _row(c, "directory", str(gone.strerror).removeprefix("the working directory ").replace("tell the user, who can ", ""))
    # Where the figure comes from, as /context's heading says: a compaction's own figures are estimates.
    # Counted, on the safe side, until the reports tell: the figure may fall by it at the next one.
    unsure = (f" ({pic.reasoning_unsure:,} of them the last answer's reasoning, which the provider may not "
              "count when it is sent back)") if pic.reasoning_unsure else ""
    _row(c, "context", f"{used:,} / threshold {lim.threshold:,} / window {lim.window:,} tokens, "
                       f"{'provider-reported' if pic.anchored else 'estimated'}{unsure}")
    due = s.cm.schedule.hard_limit(s.cm) if s.cm.schedule.priced_by(s.cm) else None  # the latest a compaction comes
    _row(c, "", f"{render.bar(used, lim.threshold, lim.window, width=max(10, min(40, c.width - 52)))}  "
                + session_views.due_words(used, lim.threshold, due, s.cm.breaker_open))
    if (learned := s.cm.window_learned) is not None:  # a server whose window is smaller than the one given
        from ..agent.run.server_windows import learned_how
        from ..agent.run.stream_events import window_choice

        choice = window_choice(s)  # the server named as the line that said it was learned named it
        named = choice.named()  # how it showed it, as kept: no answer did, a refusal or prompts cut did
        whence = {"refused": f"a refusal by {named}", "cut": f"prompts {named} cut to it without saying so"}.get(
            learned_how(s, learned.window) or "", named)
        _row(c, "", f"learned from {whence}, not {choice.words(learned.given)}")
    from .history_view import all_boundaries, compactions
    from .resume_switch import compacted_this_run

    boundaries = all_boundaries(s.store, skipped := list[OSError]())
    whole = len(made := compactions(boundaries))
    # Made, not in the conversation now: a /rewind to before some undoes them, and /history still lists them.
    undid = ", counting any a /rewind undid" if made and any(b.strategy == "rewind" for b in
                                                            boundaries[boundaries.index(made[0]):]) else ""
    _row(c, "compactions", f"{whole} in the whole session{undid} ({compacted_this_run(s)} since this run began)",
         render.auto_compaction(s.cm.failures, s.cm.breaker_open, None if (at := s.cm.archive_retry_at) is None
                                else at - s.cm.requests, breaker_retry.retry_in_s(s.cm)))
    _say_skipped(c, skipped)
    if kept := space_line(s.store.archives()):  # nothing removes them by itself
        _row(c, "archives", kept)
    if s.ext.mcp is not None:
        from .more_commands import mcp_summary

        _row(c, "mcp", mcp_summary(s.ext.mcp))
    c.print(render.savings_table(pic.kept_out))  # of the context `picture` just measured, as /context counts it


def _endpoint(s: AgentSession) -> str | None:
    """Where the requests go, and where that was given: `(--base-url)`, `(base_url in PATH)`, `(the
    address COMPACT_AGENT_BASE_URL gives)`, `(the address the session remembers)`, or the address the
    provider's client reads from its variable (`http://… (from ANTHROPIC_BASE_URL)`); None: its own API."""
    from ..error_notes import endpoint_chosen_by
    from ..settings_in_use import env_endpoint

    if (env := env_endpoint(s.opts.base_url, s.info.provider)) is not None:
        return f"{env[0]} (from {env[1]})"
    if not s.opts.base_url:
        return None
    chosen = endpoint_chosen_by(s.opts.config)
    flag = s.opts.config is not None and s.opts.config.sources.get("base_url") == "flag"
    why = chosen[1].split(": ")[0] if chosen and chosen[0] == s.opts.base_url else "--base-url" if flag else None
    return s.opts.base_url + (f" ({why})" if why else "")


def _not_saved(s: AgentSession) -> str:
    """What /status says after the id of a session nothing is saved in (`-r ID` finds no such
    session): the REPL's saves it with the first message; `-p /status` in a new session, none."""
    from .command_registry import current_repl

    if s.store.path.exists():
        return ""
    return " (not saved yet: your first message saves it)" if current_repl() is not None else \
        " (not saved: a command alone starts no session)"


def _say_skipped(c: Console, skipped: list[OSError]) -> None:
    """One line for the archives /status and /history could not read (history_view.all_boundaries):
    which, and why; the compactions they record are not counted."""
    if not skipped:
        return
    which = ", ".join(f"{Path(e.filename).name if e.filename else 'one'} ({e.strerror or e})" for e in skipped)
    c.print(f"{plural(len(skipped), 'compaction archive')} skipped: {which}; the compactions "
            f"{'it records' if len(skipped) == 1 else 'they record'} are not counted here",
            style="yellow", markup=False, highlight=False, soft_wrap=True)  # one line: the terminal wraps it


#: The width of /status's label column: its longest label's, `compactions` (at 10, its value stood a
#: column right of the others').
LABEL_WIDTH = len("compactions")


def _row(c: Console, label: str, value: str, beside: str = "") -> None:
    """A row of /status: the label, then the value, wrapped under itself (in 60 columns the
    context row's 'provider-reported' went on at column 0, under the labels). `beside`: said after
    the value where the line holds both, else from a line of its own under it: wrapped with the
    value, 80 columns left `auto-compaction` at the end of one line and `on` alone on the next."""
    head = f"{label:<{LABEL_WIDTH}} "
    room = max(20, c.width - len(head))
    if beside and cell_len(together := f"{value}   {beside}") <= room:
        value, beside = together, ""
    text = Text()
    lines = [line for part in (value, beside) if part
             for line in c.render_str(part, markup=False, highlight=False).wrap(c, room)]
    for i, line in enumerate(lines):
        text.append("\n" + " " * len(head) if i else head)
        text.append_text(line)
    c.print(text, highlight=False)


@command("memory", "the instruction files loaded (AGENTS.md / CLAUDE.md), in order; /memory N opens one in $EDITOR")
async def _memory(s: AgentSession, args: str, c: Console) -> None:
    from ..agent.run.options import instruction_files

    paths = list(s.instructions_paths)
    # Read when the session starts, for a system prompt that stays the same (and cached) to its end:
    # a file written since (/init) is named as such, not taken for missing.
    loaded = {p.resolve() for p in paths}
    found = instruction_files(s.cwd, s.permissions)
    written = [p for p in found.paths if p.resolve() not in loaded]
    every = [*paths, *written]
    if not every and args.strip():
        raise CommandError(f"no instruction file {args.strip()}: none is loaded (/init writes an AGENTS.md)")
    if not every:
        c.print("no instruction files loaded: AGENTS.md or CLAUDE.md in the project (from the repository root "
                "down to here) or beside the user config; /init writes one")
        _left_out(found.left_out, c)
        return
    want = args.strip()
    if want.isdigit() and 1 <= int(want) <= len(every):
        if current_repl() is None:  # print mode: no editor takes the terminal over
            c.print(f"{every[int(want) - 1]} (open it in the REPL, or in your editor)", markup=False, highlight=False,
                    soft_wrap=True)  # a path, whole
            return
        await _edit(every[int(want) - 1], c)
        return
    if want:
        raise CommandError(f"usage: /memory [N], N from 1 to {len(every)} (the files /memory lists)" if len(every) > 1
                           else "usage: /memory [1]: there is only one instruction file (/memory lists it)")
    if paths:
        c.print("instruction files, in the order they go into the system prompt (the later one wins):")
    else:
        c.print("no instruction files were loaded when this session started")
    for i, p in enumerate(every, 1):
        try:
            size = plural(len(p.read_text(encoding='utf-8', errors='replace')), "character", grouped=True)
        except OSError:
            size = "unreadable"
        if i == len(paths) + 1:
            c.print(f"written since this session started; new sessions read {'it' if len(written) == 1 else 'them'} "
                    "(/clear starts one), this one keeps the system prompt it began with:")
        line = f"  {i}. {secrets.redact(str(p))}  ({size})"  # a key in the working directory's name
        if render.fits(c, line):
            c.print(line, markup=False, highlight=False)
        else:  # the path whole on a line of its own, as /history shows an archive's
            c.print(f"  {i}. ({size})", markup=False, highlight=False)
            render.path_line(c, p, indent="     ")
    _left_out(found.left_out, c)
    opens = ("/memory N opens one in $EDITOR (new sessions read it again)" if current_repl() is not None
             else "/memory N prints its path (the REPL's /memory N opens it in $EDITOR)")  # print mode: no editor
    c.print(f"{opens}; /notes shows the session notes", style="dim")


def _left_out(lines: list[str], c: Console) -> None:
    """The instruction files there that are not read, one line each with why (instructions.py): a
    `CLAUDE.md` linked out of the repository was missing from the list without a word."""
    for line in lines:
        c.print(line, style="yellow", markup=False, highlight=False, soft_wrap=True)  # a path, whole


async def _edit(path: Path, c: Console) -> None:
    import asyncio
    import os
    import shlex as sh

    name = "VISUAL" if os.environ.get("VISUAL", "").strip() else "EDITOR"
    editor = os.environ.get(name, "")
    if not editor.strip():  # blank: no words, and the file itself would have been run as the program
        c.print(f"set $EDITOR to open files from here; the file is {path}", markup=False)
        return
    # An editor that cannot start said only 'No such file or directory: vim-nox', and one that
    # failed was taken for an edit: each is now a line naming the variable and the file.
    repl = current_repl()
    keys = repl.keys if repl is not None else None
    with keys.paused() if keys is not None else nothing() as hand_over:  # the editor reads the terminal, not the REPL
        if hand_over is not None and not hand_over():  # Ctrl-C typed before it started: the command stops
            return
        try:
            words = sh.split(editor)
            # without the key, as the model's commands: the editor reads the project's own settings (.exrc)
            proc = await asyncio.create_subprocess_exec(*words, str(path), env=secrets.scrubbed_env())
        except ValueError as e:  # shlex's words ('No closing quotation'), not ours: what is wrong with the line
            why = "it ends in a lone backslash" if "escaped" in str(e) else "a quote in it is not closed"
            raise CommandError(f"${name} ({editor}) is not a command line: {why}; the file is {path}") from None
        except OSError as e:
            why = "no such program" if isinstance(e, FileNotFoundError) else e.strerror or str(e)
            raise CommandError(f"could not start ${name} ({editor}): {why}; the file is {path}") from None
        try:
            code = await proc.wait()
        except asyncio.CancelledError:  # Ctrl-C (work_keys.py): the terminal is the editor's until it ends
            await proc.wait()
            raise
    if code != 0:
        raise CommandError(f"${name} ({editor}) ended with exit code {proc.returncode}; the file is {path}")
    c.print(f"edited {path}; new sessions read it again", markup=False)


@command("notes", "the session notes that let compaction skip the summary call", takes_args=False)
async def _notes(s: AgentSession, args: str, c: Console) -> None:
    if s.memory is None:
        c.print("session notes are off: memory_enabled is false (memory_enabled = true in a config file, or "
                "COMPACT_AGENT_MEMORY_ENABLED=true, turns them on)", markup=False, highlight=False)
        return
    failed = s.memory.failure()  # why the notes are missing, or older than they look, and when tried again
    path, status = _notes_status(s.memory.path, s.memory.status())
    if not s.memory.notes and failed:
        c.print(f"no notes yet: {failed}", markup=False, highlight=False)
        c.print(status, style="dim", markup=False, highlight=False)
    elif not s.memory.notes:
        c.print(f"no notes yet ({status})", markup=False, highlight=False)
    else:
        # as written: the terminal wraps them, not us (a path in them was split by a hard line break)
        c.print(s.memory.notes.rstrip("\n"), markup=False, highlight=False, soft_wrap=True)
        c.print(status, style="dim", markup=False, highlight=False)
    if path:  # the notes file, whole on a line of its own (a pipe's 80 columns split it mid-name)
        render.path_line(c, path, style="dim")
    if s.memory.notes and failed:
        c.print(failed, style="yellow", markup=False, highlight=False)


def _notes_status(path: Path | None, status: str) -> tuple[Path | None, str]:
    """The notes file apart from the rest of their status line (`PATH · covers … · 2 updates`), for
    the path to go on a line of its own."""
    head = f"{path} · "
    return (path, status[len(head):]) if path is not None and status.startswith(head) else (None, status)


@command("history", "compaction boundaries (with archive paths) and message numbers for /compact --from/--up-to", takes_args=False)
async def _history(s: AgentSession, args: str, c: Console) -> None:
    from .history_view import all_boundaries, boundary_lines, boundary_words, compactions

    boundaries = all_boundaries(s.store, skipped := list[OSError]())
    _say_skipped(c, skipped)
    if not compactions(boundaries):
        c.print("no compactions yet")
    for b in boundaries:
        what, archive = boundary_words(b)
        for line in boundary_lines(render.when(b.time), what, c.width):
            c.print(line, soft_wrap=True)  # laid out for the width already
        for line in boundary_lines("", archive, c.width):  # under the words, also where it wraps (40 columns)
            c.print(line, style="dim", soft_wrap=True)
        # The path on a line of its own, from the left: after the 46 columns of the words above it
        # a terminal of 100 columns split it. Never split by us: the terminal may wrap it, we do not.
        render.path_line(c, b.archive, style="dim")
    if not s.messages:  # a heading over nothing read as if the list had been lost
        c.print("no messages yet: the conversation is empty")
        return
    c.print("messages (the numbers /compact --from N and --up-to N take):")
    from .history_view import message_rows, signalled_row
    from .sent_record import shown_as

    shown = shown_as(s.store.root, s.session_id)  # a paste as its placeholder, as it was shown when sent
    rows = [(i, row, who_what) for i, m in enumerate(s.messages)
            for row, who_what in enumerate(message_rows(m, shown, itertools.islice(s.messages, i + 1, None)))]
    if signal := s.store.signalled(s.messages):  # the file's mark, not a message yet: the next turn closes it
        rows.append((len(s.messages), 1, signalled_row(signal)))
    for i, row, (who, text) in rows:
        # Every message its position, the number --from and --up-to take: the close of a turn that got
        # no answer too (`no answer`), which the model reads; left out, the numbers went 10, 12.
        # A request with what you typed and tool results: two rows, the number on the first.
        number = f"{i:>4}" if row == 0 else " " * 4
        # what was written, not markup: 'list[str]' and 'x[i]' lost '[str]' and '[i]'
        for n, line in enumerate(_row_lines(text, max(20, c.width - 20))):
            c.print(f"  {number if n == 0 else '':>4} {who if n == 0 else '':<12} {line}", markup=False)


def _row_lines(text: str, room: int) -> list[str]:
    """A `/history` row's text in `room` cells: clipped, the note under a reply cut off (torn, stopped,
    a signal's: history_view.CUT_OFFS) kept whole after it. Clipped with the row, the note was lost for
    any part of a reply longer than the row; where it leaves the text too little room, it goes under."""
    from .cells import wrap
    from .history_view import CUT_OFFS

    note = next((n for _, n in CUT_OFFS if text.endswith(n)), "")
    body = secrets.redact(text.removesuffix(note).rstrip())
    if not note or cell_len(body) + 1 + cell_len(note) <= room:
        return [render.clip_words(secrets.redact(text), room)]
    if room - 1 - cell_len(note) >= 20:
        return [f"{render.clip_words(body, room - 1 - cell_len(note))} {note}"]
    return [render.clip_words(body, room), *wrap(note, room)]


@command("clear", "start a new session (the old one stays on disk)", takes_args=False)
async def _clear(s: AgentSession, args: str, c: Console) -> None:
    from .resume_switch import leaving

    leaving(s)  # what this run compacted of it, counted if it comes back (/resume)
    s.clear()
    c.print(f"new session {s.session_id}")


@command("exit", "leave", takes_args=False)
async def _exit(s: AgentSession, args: str, c: Console) -> None:
    raise ExitRepl


async def dispatch(s: AgentSession, line: str, c: Console) -> None:
    """Run a slash command line as the REPL does: a refusal is shown as its one line."""
    try:
        await run_command(s, line, c)
    except CommandError as e:
        c.print(str(e), markup=False, highlight=False)


async def run_command(s: AgentSession, line: str, c: Console) -> None:
    """Run a slash command line; raises `CommandError` (one line) for an unknown command, words a
    command takes none of, or arguments it does not understand."""
    # the name ends at any white space: a paste of '/status' and '/context' on two lines was
    # 'unknown command /status\n/context (did you mean /context?)'
    name, args = (line[1:].split(maxsplit=1) + ["", ""])[:2]
    cmd = built_in(name)  # in any case: `/Compact` is /compact; the arguments keep theirs
    if cmd is None and (custom := custom_command(s.cwd, name)) is not None:
        await run_custom(s, custom, args.strip(), c)
        return
    if cmd is None:
        names = list(custom_commands(s.cwd))
        close = close_command(name, custom=names) or close_command(name.lower(), custom=names)  # `/CONTEXT`
        raise CommandError(f"unknown command /{name}" + (f" (did you mean /{close}?)" if close else "")
                           + "; /help lists them")
    if args.strip() and not cmd.takes_args:
        raise CommandError(f"/{cmd.name} takes no arguments; not understood: {render.clip_words(args.strip(), 60)}")
    await cmd.handler(s, args.strip(), c)


# /help lives in help_command.py, /compact in compact_command.py, /context, /cost and /plan in session_views.py, /model in
# model_command.py, /init, /permissions, /config, /mcp, /diff and /resume in more_commands.py, /expand
# in expand.py, /rewind in rewind_command.py; each registers itself in COMMANDS (command_registry.py).
from . import (  # noqa: E402,F401
    compact_command,
    expand,
    help_command,
    model_command,
    more_commands,
    rewind_command,
    session_views,
)
