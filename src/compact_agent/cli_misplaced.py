"""An option of the chat command given after a subcommand (`compact-agent config --context-window
8k`), which the subcommand's parser does not know: the line says where it goes, with the whole
command line as it would run, or that the subcommand does not use it. Click said 'no such option
--context-window; did you mean --forget-window?'."""

from __future__ import annotations

import re
import shlex
from typing import Any

from .cli_unused import COMMAND_LINE, USES


def before_the_command(e: Any, parent: Any, name: str, args: list[str], own: tuple[set[str], set[str]]
                       ) -> str | None:
    """The line for an option of the chat command given after the subcommand `name`
    (`compact-agent config --context-window 8k`), which the subcommand's parser does not know: it
    was 'no such option --context-window; did you mean --forget-window?'. Where the subcommand uses
    the option, where it goes, with the whole command line as it would run: every option of the chat
    command given after the name moved before it (`config --base-url URL -m NAME`: `compact-agent
    --base-url URL -m NAME config`; it said the first alone and dropped `-m`), those given before it
    and the subcommand's own (`own`: its options that take a value, and its flags) kept where they
    were; where the subcommand does not use it, that. None: no option of the chat command.
    `parent`: the chat command's context."""
    if type(e).__name__ != "NoSuchOption":
        return None
    top, top_path = parent.command, parent.command_path
    typed = (getattr(e, "option_name", None) or "").partition("=")[0]
    param = _chat_option(top, typed)
    if param is None or not typed:
        return None
    uses = USES.get(name, set())
    if param.name not in uses:
        return f"{typed} is an option of the chat command; {name} does not use it (see {top_path} {name} --help)"
    moved, rest, unused = _moved(top, own, args, uses)
    if not moved:  # not found as written (short flags together): the option alone
        moved, rest, unused = [(typed, None if getattr(param, "is_flag", False) else str(param.metavar))], [], []
    names = list(dict.fromkeys(a for a, _ in moved))
    goes = f"{names[0]} goes" if len(names) == 1 else f"{', '.join(names[:-1])} and {names[-1]} go"
    options = [f"{a} {_shell(v)}" if v is not None else a for a, v in moved]
    line = " ".join([top_path, *map(_shell, _before(parent, name, args)), *options, name, *map(_shell, rest)])
    also = f" ({name} does not use {' or '.join(unused)})" if unused else ""
    return f"{goes} before the command: {line}{also}"


def _chat_option(top: Any, typed: str) -> Any:
    """The chat command's option (not the hidden ones) that `typed` names, or None."""
    return next((p for p in getattr(top, "params", []) if typed in (*p.opts, *p.secondary_opts)
                 and not getattr(p, "hidden", False)), None)


def _moved(top: Any, own: tuple[set[str], set[str]], args: list[str], uses: set[str]
           ) -> tuple[list[tuple[str, str | None]], list[str], list[str]]:
    """`args` (what follows a subcommand's name) split into the chat command's options the
    subcommand uses, each with its value (None for a flag), the rest (the subcommand's own options
    and arguments, as given), and the chat command's options it does not use, by name."""
    own_values, own_flags = own
    moved: list[tuple[str, str | None]] = []
    rest: list[str] = []
    unused: list[str] = []
    i = 0
    while i < len(args):
        a = args[i]
        if a == "--":
            rest += args[i:]
            break
        name, eq, joined = a.partition("=") if a.startswith("--") else (a, "", "")
        if re.fullmatch(r"-[a-zA-Z].+", a) and a[:2] not in own_values | own_flags:  # `-mNAME`: `-m NAME`
            name, eq, joined = a[:2], "=", a[2:]
        param = None if name in own_values | own_flags else _chat_option(top, name)
        if param is None:
            rest.append(a)
            if name in own_values and not eq and i + 1 < len(args):  # its value, whatever it looks like
                rest.append(args[i + 1])
                i += 1
            i += 1
            continue
        value: str | None = None
        if not getattr(param, "is_flag", False):
            if eq:
                value = joined
            elif i + 1 < len(args):
                value = args[i + 1]
                i += 1
            else:
                value = str(param.metavar or param.name.upper())
        if param.name in uses:
            moved.append((name, value))
        elif name not in unused:
            unused.append(name)
        i += 1
    return moved, rest, unused


def _shell(word: str) -> str:
    return shlex.quote(word)


def _before(parent: Any, name: str, args: list[str]) -> list[str]:
    """The arguments given before the subcommand `name`, whose own arguments are `args`."""
    line = list(parent.meta.get(COMMAND_LINE, []))
    at = len(line) - len(args) - 1
    return line[:at] if at >= 0 and line[at] == name and line[at + 1:] == args else []
