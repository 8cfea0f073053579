"""Options of the chat command given before a subcommand (`compact-agent --prices X analyze T`):
the subcommand reads the ones it uses (the settings `config` shows, the endpoint and key of
`analyze --model`, the directory) and says the others in one line, rather than dropping them
without a word (`analyze` replayed at its own pricing while --prices was given). One the subcommand
has an option of its own for (`analyze --prices`) is said with the command line that gives it
there."""

from __future__ import annotations

import shlex
import sys

import typer

#: The chat command's options each subcommand reads (by parameter name).
USES = {
    "config": {"model", "base_url", "context_window", "prices", "max_turns", "cwd"},
    "sessions": {"cwd"},
    "analyze": {"base_url", "api_key", "cwd"},  # the endpoint and key of analyze's own --model
}

#: The chat command's options a subcommand does not read but has its own of, for the same work (by
#: parameter name): given before its name they are the chat's, and the line says where its own goes.
#: Not `analyze --model`: that names the model writing the summaries, not the chat's.
OWN = {"analyze": {"prices"}}

#: Where the top-level command keeps its command line (in the contexts' shared `meta`, cli_help.py):
#: a line repeats the options given before the subcommand's name (cli_misplaced.py), or after it.
COMMAND_LINE = "compact_agent.command_line"


def given(ctx: typer.Context) -> dict[str, str]:
    """The options given on the command line (not by default or the environment), by parameter
    name: the long name of each. The positional QUERY (a hidden option) is not one."""
    out: dict[str, str] = {}
    for p in ctx.command.params:
        source = ctx.get_parameter_source(p.name) if p.name else None
        if p.name and p.opts and not getattr(p, "hidden", False) and getattr(source, "name", "") == "COMMANDLINE":
            out[p.name] = max(p.opts, key=len)
    return out


def say_unused(ctx: typer.Context, command: str) -> None:
    """One line on stderr naming the chat command's options `command` does not use, if any were
    given; and for each it has its own of (`OWN`), not given there too, one line saying where that goes."""
    flags = (ctx.obj or {}).get("given", {})
    own = {name: flag for name, flag in flags.items() if name in OWN.get(command, set())
           and getattr(ctx.get_parameter_source(name), "name", "") != "COMMANDLINE"}
    unused = [flag for name, flag in flags.items() if name not in USES.get(command, set()) and name not in own]
    if unused:
        names = unused[0] if len(unused) == 1 else f"{', '.join(unused[:-1])} and {unused[-1]}"
        sys.stderr.write(f"compact-agent: note: {names} {'does' if len(unused) == 1 else 'do'} not apply to "
                         f"`{command}`; ignored (see compact-agent {command} --help)\n")
    for flag in own.values():
        sys.stderr.write(f"compact-agent: note: {flag} before `{command}` is the chat command's, ignored; "
                         f"{command} takes its own after the command: {after_the_command(ctx, flag)}\n")


def after_the_command(ctx: typer.Context, flag: str) -> str:
    """The command line as it would run with `flag` (and its value, the last given) after the
    subcommand's name rather than before it (`compact-agent analyze --prices 1,0.1,2 T.jsonl`), all
    else as given; where the name is not found as written (short flags together), the subcommand's
    arguments as `...`."""
    top = ctx.parent
    line = list(ctx.meta.get(COMMAND_LINE, []))
    params = getattr(top.command, "params", []) if top is not None else []
    takes = {o for p in params if not getattr(p, "is_flag", False) for o in p.opts}
    before: list[str] = []
    moved = [flag]
    i = 0
    while i < len(line) and line[i].startswith("-") and line[i] != "--":
        word = line[i : i + 2 if line[i] in takes else i + 1]  # an option, with its value when apart
        i += len(word)
        name, eq, value = word[0].partition("=")
        if name == flag:
            moved = [flag, value] if eq else word
        else:
            before += word
    after = line[i + 1:] if i < len(line) and line[i] == ctx.info_name else ["..."]
    path = top.command_path if top is not None else "compact-agent"
    return " ".join([path, *map(shlex.quote, [*before, ctx.info_name or "", *moved, *after])])
