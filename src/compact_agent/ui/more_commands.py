"""/init, /permissions, /config, /mcp, /diff and /resume: what Claude Code and Codex users reach for.

Registered into the slash-command table from here (commands.py imports this module).
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from rich.console import Console

from .. import secrets
from ..agent.run.options import session_root, sessions_starting
from ..agent.run.runner import AgentSession
from ..session.files import as_copied
from ..session.held_elsewhere import REPL_RESUME, holder
from ..session.listing import counted
from ..words import plural
from . import render
from .command_registry import CommandError, command, current_repl
from .sessions_list import numbered, resumed_size, session_rows, unlisted_line

if TYPE_CHECKING:
    from collections.abc import Mapping

    from ..agent.integrations.mcp_servers import McpServers

INIT_PROMPT = """Look at this repository and write an AGENTS.md file at its top level for coding agents working here.
Find out (with glob, grep, read_file; run nothing that changes state): what the project is, how it is laid out,
how to install, build, lint and test it (the exact commands), and the conventions its code follows.
Write it short and concrete: commands in code blocks, one line per rule, nothing generic.
If an AGENTS.md or CLAUDE.md exists, read it first and improve it instead of starting over."""


@command("init", "look at the repository and write an AGENTS.md for it (asks before writing); /init NOTES: what to stress")
async def _init(s: AgentSession, args: str, c: Console) -> None:
    repl = current_repl()
    path = s.cwd / "AGENTS.md"
    before = _read(path)
    told = s.env.on_change
    s.env.on_change = _asked_for(path, told)
    try:
        if repl is None:  # outside the REPL loop (a test dispatching directly): a plain turn
            await s.run_turn(INIT_PROMPT + (f"\n{args}" if args else ""))
        else:
            await repl.turn(INIT_PROMPT + (f"\n{args}" if args else ""))
    finally:
        s.env.on_change = told
    after = _read(path)
    # What the turn did to it: one that was there already, left as it was (the write declined, the
    # turn stopped), was said to be written.
    said = ("no AGENTS.md was written" if after is None else
            f"wrote {path}; it goes into the system prompt of new sessions" if before is None else
            f"updated {path}; it goes into the system prompt of new sessions" if after != before else
            f"{path} was not changed")
    c.print(said, soft_wrap=True, markup=False, highlight=False)  # a path, whole


def _asked_for(path: Path, told: Callable[[str, dict[str, Any]], None] | None) -> Callable[[str, dict[str, Any]], None] | None:
    """`told` (the session's on_change) with the AGENTS.md /init asks for taken as asked for: the user
    typed /init, so its write (with --yes, or a tool allowed whole) is no instruction file the model
    wrote unasked (permissions.changed_note), said as such and listed among the files changed
    unasked. Another instruction file the turn writes still is."""
    if told is None:
        return None
    asked = path.resolve()

    def on_change(tool: str, info: dict[str, Any]) -> None:
        if "instruction" in info and Path(str(info.get("path", ""))).resolve() == asked:
            info = {k: v for k, v in info.items() if k not in ("instruction", "unasked", "custom_command")}
        told(tool, info)
    return on_change


def _read(path: Path) -> bytes | None:
    """The file's bytes, None when there is none (or it cannot be read)."""
    try:
        return path.read_bytes()
    except OSError:
        return None


@command("permissions", "what runs without asking: mode, tools allowed this session, bash rules, writable folders", takes_args=False)
async def _permissions(s: AgentSession, args: str, c: Console) -> None:
    p, st = s.permissions, s.settings
    mode = {"ask": "ask before writes, edits, commands and MCP tools", "yes": "allow everything (--yes)",
            "deny": "refuse what needs approval (print mode)"}.get(p.mode, p.mode)
    c.print(f"mode             {mode}")
    allowed = [*sorted(p.allowed_tools), *(f"{tool}: {what}" for tool, what in sorted(p.always))]
    none = {"deny": "(none: print mode does not ask; --allowed-tools, or --yes)",  # no [a]lways to answer
            "yes": "(everything, with --yes)"}.get(p.mode, "(none yet: answer [a]lways, or --allowed-tools)")
    c.print(f"always allowed   {', '.join(allowed) or none}")
    c.print(f"bash allowed     {', '.join(st.allow_bash) or '(none)'}")
    c.print(f"bash denied      {', '.join(st.deny_bash) or '(none)'}")
    for key, label in (("allow_tools", "mcp allowed      "), ("deny_tools", "mcp denied       ")):  # mcp_calls.py
        rules = [f"{server}: {', '.join(map(str, spec[key]))}" for server, spec in sorted(st.mcp_servers.items())
                 if isinstance(spec, dict) and isinstance(spec.get(key), list) and spec[key]]
        if rules:  # the servers' own rules, said only where there are any
            c.print(label + "; ".join(rules), markup=False, highlight=False)
    _paths(c, "writable         ", [str(s.cwd), *map(str, st.extra_dirs)])
    _paths(c, "never written    ", list(st.deny_paths))
    c.print("rules live in [permissions] of the config files (/config shows where)", style="dim")


def _paths(c: Console, label: str, paths: list[str]) -> None:
    """`label` and its paths on one line where it fits, else each path whole on a line of its own
    (as /history shows an archive's): a pipe's 80 columns split a deep project's path mid-name."""
    paths = [secrets.redact(p) for p in paths]  # a key in the working directory's name
    line = label + (", ".join(paths) or "(none)")
    if render.fits(c, line):
        c.print(line, markup=False, highlight=False)
        return
    c.print(label.rstrip(), markup=False, highlight=False)
    for p in paths:
        render.path_line(c, p)


@command("config", "the settings this session runs with and where each came from (files, env, flags, the session, /model)",
         takes_args=False)
async def _config(s: AgentSession, args: str, c: Console) -> None:
    from ..config import home_dir
    from ..settings_file import SettingsError, load, with_changes
    from ..settings_in_use import for_session, shown

    try:
        loaded = s.opts.config or load(s.cwd)  # as the session started: its flags included
    except SettingsError as e:
        c.print(str(e), style="red")
        return
    window = s.opts.context_window or loaded.settings.context_window
    loaded = with_changes(loaded, "/model", model=s.info.name, context_window=window)  # a /model switch since
    # What `compact-agent config` shows, for what this session runs with: a table fitted to the
    # terminal (a long value wraps in its column; lines whole for a pipe), then the server windows kept.
    text = shown(for_session(loaded, s), s.opts.home or home_dir(), width=c.width if c.is_terminal else None, cwd=s.cwd)
    c.print(text.rstrip("\n"), soft_wrap=True, markup=False)
    mode = {"yes": "--yes: nothing asked", "deny": "refuse what needs approval", "ask": "ask"}.get(
        s.permissions.mode, s.permissions.mode)
    c.print(f"this session: window {s.cm.limits.window:,}, permissions {mode}"
            + (f", allowed without asking: {', '.join(sorted(s.permissions.allowed_tools))}"
               if s.permissions.allowed_tools else "") + " (/permissions)", style="dim")


@command("mcp", "MCP servers: connected ones with their tools, and the ones that failed", takes_args=False)
async def _mcp(s: AgentSession, args: str, c: Console) -> None:
    mcp = s.ext.mcp
    if mcp is None:
        c.print("no MCP servers configured ([mcp_servers.NAME] in a config file; see docs/configuration.md)")
        return
    # Connected now if no turn or command did yet (once a session, as the first turn would): what it
    # says is each server's state, not "they connect with the first message", which print mode never sends.
    mcp.listed = True  # a server that fails meanwhile is said in the list, not also in a line of its own
    await s.ext.connect()
    await s.ext.mcp_tools_now()  # a server's list changed since the last request (list_changed): as it is now
    # Not read as markup: a failure names where to check, `[mcp_servers.NAME]`, which markup dropped.
    for line, failed in mcp_rows(mcp, s.ext.mcp_notes):
        c.print(line, style="red" if failed else None, markup=False, highlight=False)


def mcp_summary(mcp: McpServers) -> str:
    """/status's row of the MCP servers, in the configured order: each one's state, and a connected
    one's tool count (`notes connected, 1 tool; broken failed`); /mcp names the tools and why one failed."""
    def state(name: str) -> str:
        if name in mcp.live:
            return f"{name} connected, {plural(len(mcp.live[name].tools), 'tool')}"
        return f"{name} {'stopped' if name in mcp.stopped else 'failed' if name in mcp.failed else 'connecting'}"

    said = "; ".join(state(cfg.name) for cfg in mcp.configs)
    return said + (" (/mcp says why)" if mcp.failed else "")


def mcp_rows(mcp: McpServers, notes: Mapping[str, list[str]] | None = None) -> list[tuple[str, bool]]:
    """/mcp's rows in the configured order, name, state and tool count in columns (each a line, and
    whether it says a failure): `notes    connected  1 tool   notes_lookup_note`, `broken   failed
    no program …`. Written with two spaces between the fields, they stood at a different place on
    every row, the tool names too. Under a server's row, its `notes` (`tool file left out: its name
    read_file is a built-in tool's`): `read  connected  0 tools` stood there with no reason. Then each
    rule that names no tool there is (`--allowed-tools docs_serch`, an `allow_tools` entry)."""
    live, failed = mcp.live, mcp.failed
    names = [cfg.name for cfg in mcp.configs if cfg.name in live or cfg.name in failed]
    name_w = max((len(name) for name in names), default=0)
    counts = {name: plural(len(live[name].tools), "tool") for name in names if name in live}
    count_w = max((len(count) for count in counts.values()), default=0)
    rows = []
    for name in names:
        if name in live:
            row = f"{name:<{name_w}}  connected  {counts[name]:<{count_w}}  {', '.join(live[name].tools)}"
        else:
            row = f"{name:<{name_w}}  {'failed':<9}  {failed[name]}"
        rows.append((row.rstrip(), name not in live))
        rows.extend((f"{'':<{name_w}}  {note}", False) for note in (notes or {}).get(name, ()))
    return rows + [(line, False) for line in mcp.unmatched]  # rules that name no tool there is (mcp_calls.py)


@command("diff", "uncommitted changes in the working directory (git diff, and new files)", takes_args=False)
async def _diff(s: AgentSession, args: str, c: Console) -> None:
    async def git(*argv: str) -> tuple[int, str]:
        # git runs what the repository's config names (diff.external, a textconv driver, fsmonitor),
        # which a command the model ran may have put there: it gets the bash tool's environment, no key.
        proc = await asyncio.create_subprocess_exec("git", *argv, cwd=str(s.cwd), stdout=asyncio.subprocess.PIPE,
                                                    stderr=asyncio.subprocess.STDOUT, env=secrets.scrubbed_env())
        out, _ = await proc.communicate()
        return proc.returncode or 0, out.decode("utf-8", "replace")

    # Paths as they are named, not as git quotes them by default ("caf\303\251.py").
    plain = ("-c", "core.quotePath=false")
    try:
        code, out = await git(*plain, "diff", "HEAD", "--stat", "--patch", "--no-color")
    except OSError:
        c.print("git is not installed; /diff shows changes of a git repository")
        return
    if code != 0:
        code, out = await git(*plain, "diff", "--stat", "--patch", "--no-color")  # a repository without commits yet
    if code != 0:
        if "not a git repository" in out.lower():
            c.print(f"not a git repository: {s.cwd} (/diff shows a repository's uncommitted changes)")
        else:
            c.print("git diff failed: " + " ".join(out.split())[:200])
        return
    # NUL-separated: a name with a space is one name (it was split at the space: `src/sub, dir/a, b.py`).
    _, listed = await git("ls-files", "-z", "--others", "--exclude-standard")
    untracked = [name for name in listed.split("\0") if name]
    if not out.strip() and not untracked:
        c.print("no uncommitted changes")
        return
    for line in out.rstrip("\n").splitlines():
        style = "green" if line.startswith("+") and not line.startswith("+++") else \
            "red" if line.startswith("-") and not line.startswith("---") else None
        c.print(line, style=style, highlight=False)
    if untracked:
        c.print("new files: " + ", ".join(untracked), style="green")


#: A session id begins with its date (20261201-182903-4fc4f4): a shorter number is a list number.
ID_DATE_DIGITS = 8


@command("resume", "list this directory's sessions, or switch to one: /resume [ID | N]")
async def _resume(s: AgentSession, args: str, c: Console) -> None:
    listed = session_rows(root := session_root(s.cwd, s.opts.home))
    lines, rows = numbered([r for r in listed if r.id != s.session_id], c.width)
    want = args.strip()
    if not want:
        for line in lines:  # files under a session's name that are none are listed, unnumbered
            c.print(line, markup=False, highlight=False)
        if (more := unlisted_line(root, listed, "/resume ID")) is not None:
            c.print(more, style="dim", markup=False, highlight=False)
        c.print("use /resume N or /resume ID" if rows else "no other sessions in this directory")
        return
    if want.isdigit() and len(want) < ID_DATE_DIGITS:  # a number from the list, not the start of an id
        if not 1 <= int(want) <= len(rows):
            raise CommandError(f"no session {want} in the list: "
                               + (f"there {'is' if len(rows) == 1 else 'are'} {plural(len(rows), 'other session')}; "
                                  "/resume lists them" if rows else "there are no other sessions in this directory"))
        target = rows[int(want) - 1].id
    else:
        want = as_copied(want, root)  # `ID.jsonl`, or its path, as the sessions folder shows it
        if not sessions_starting(root, want):  # another project's is named, with how to open it
            held = holder(root.parent, root, want, REPL_RESUME)
            raise CommandError(f"no session {want} in this directory; {held[1] if held else '/resume lists them'}")
        target = want  # an id or the start of one (several matches: the switch says which)
    from .history_view import show_resumed
    from .resume_switch import switch

    repl = current_repl()  # with the options the session runs with (cli_resume.py), opened once
    uses = switch(s, target, getattr(repl, "options_for", None))
    c.print(f"resumed session {s.session_id} ({resumed_size(s.store.path, counted(s.messages))})")
    show_resumed(c, s.warnings, s.messages, s.notes, s.store)  # a message its last run left unanswered, as -c says it
    if uses is not None:
        c.print(uses, markup=False, highlight=False)

