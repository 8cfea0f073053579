"""Options of the chat command given before a subcommand (`compact-agent --prices X analyze T`):
the subcommand reads the ones it uses (the settings `config` shows, the endpoint and key of
`analyze --model`, the directory) and says the others in one line, rather than dropping them
without a word (`analyze` replayed at its own pricing while --prices was given)."""

from __future__ import annotations

import sys

import typer

#: The chat command's options each subcommand reads (by parameter name).
USES = {
    "config": {"model", "base_url", "context_window", "prices", "max_turns", "cwd"},
    "sessions": {"cwd"},
    "analyze": {"base_url", "api_key", "cwd"},  # the endpoint and key of analyze's own --model
}


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
    """One line on stderr naming the chat command's options `command` does not use, if any were given."""
    flags = (ctx.obj or {}).get("given", {})
    unused = [flag for name, flag in flags.items() if name not in USES.get(command, set())]
    if not unused:
        return
    names = unused[0] if len(unused) == 1 else f"{', '.join(unused[:-1])} and {unused[-1]}"
    sys.stderr.write(f"compact-agent: note: {names} {'does' if len(unused) == 1 else 'do'} not apply to "
                     f"`{command}`; ignored (see compact-agent {command} --help)\n")
