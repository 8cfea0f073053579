"""The slash-command registry: what a command is and the decorator that registers one.

The handlers live in commands.py, session_views.py, model_command.py, more_commands.py and the other
*_command.py modules; they all register here, and commands.py (which dispatches) imports the others,
so none of them imports back up. The
running REPL is found here too (`current_repl`), as what a command asks of it.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

from rich.console import Console

from ..error_notes import RUNNING_REPLS

if TYPE_CHECKING:
    from collections.abc import Sequence

    from pydantic_ai.messages import ModelMessage

    from ..agent.run.runner import AgentSession
    from ..agent.tools.checkpoint_entry import Checkpoint
    from .interrupt_keys import InterruptKeys

Handler = Callable[["AgentSession", str, Console], Awaitable[Any]]


@dataclass
class Command:
    name: str
    help: str
    handler: Handler
    takes_args: bool = True  # False: words after the name are refused, not silently ignored


COMMANDS: dict[str, Command] = {}
EXIT_ALIASES = ("quit", "q")  # /exit's other names: a custom command cannot take them either


def is_command(shown: str) -> bool:
    """Whether an input line, as the prompt showed it, is a command: `/name` or `!cmd` from its
    very first character. A message that starts with indentation (`    /usr/lib/x.so: not found`,
    a pasted `  // comment`) or with a paste's placeholder is a message, sent as written; so is one
    whose first word is a path (`/usr/lib/x.so: not found, why?`, a slash inside the word), as
    `-p` sends it (print_commands.refusal): no command's name holds a slash, and the REPL said
    `unknown command /usr/lib/x.so:` of a pasted error line."""
    if shown[:1] == "!":
        return True
    return shown[:1] == "/" and "/" not in (shown[1:].split(None, 1) or [""])[0]


def bare_exit(shown: str) -> bool:
    """Whether a line typed at the prompt is `exit` or `quit` alone (any case, spaces around it),
    as a newcomer types to leave: the REPL leaves as for /exit, where it was sent to the model and
    cost a request. `exit the loop early` is a message."""
    return shown.strip().lower() in ("exit", "quit")


def command(name: str, help: str, *, takes_args: bool = True) -> Callable[[Handler], Handler]:
    def deco(fn: Handler) -> Handler:
        COMMANDS[name] = Command(name, help, fn, takes_args)
        return fn
    return deco


def built_in(name: str) -> Command | None:
    """The built-in command `name` names, in any case (`/Compact`, `/HELP` and `/Q` are /compact,
    /help and /exit: typed with a capital, a command was refused as unknown), or None."""
    key = name.lower()
    return COMMANDS.get(key) or (COMMANDS.get("exit") if key in EXIT_ALIASES else None)


class CommandError(Exception):
    """A command refused what it was asked, in one line: arguments it does not understand, a
    number that names nothing. The REPL shows the line; print mode writes it to stderr and exits
    with 2 (bad usage), as for a bad flag."""


class ExitRepl(Exception):
    """Raised by /exit (and its aliases): the REPL ends."""


class RunningRepl(Protocol):
    """What a command asks of the REPL it runs in: a turn shown as the REPL shows it, a yes/no, and
    its keys (where /rewind puts the prompt back for editing) and shell output (`!cmd`'s it puts back)."""

    @property
    def keys(self) -> InterruptKeys | None: ...

    @property
    def pending(self) -> list[str]: ...  # `!cmd` output waiting to go with the next message

    async def turn(self, message: str, typed: str | None = None) -> None: ...
    async def confirm(self, question: str) -> bool: ...
    def prompt_back(self, cp: Checkpoint, messages: Sequence[ModelMessage] | None) -> str: ...
    def shown_prompt(self, cp: Checkpoint) -> str | None: ...
    def saved_session(self) -> str | None: ...


#: The REPLs running, innermost last (the REPL adds itself while its loop runs); error_notes keeps the
#: list, so that the error lines name `/model` in one (`in_repl`) without importing this module.
running: list[RunningRepl] = RUNNING_REPLS


#: Names a user brings for a command of ours that is called otherwise: `compact-agent sessions`
#: lists the sessions, which /resume does in the REPL (the closest name to /sessions was /permissions).
OTHER_NAMES = {"sessions": "resume", "session": "resume"}


def close_command(name: str, cutoff: float = 0.6, aliases: tuple[str, ...] = ("quit",),
                  custom: Iterable[str] = ()) -> str | None:
    """The command `name` is a likely typo of (`/compac` -> "compact", `/revew` -> "review", a
    project's own command), or another name for (`/sessions` -> "resume"), if any. `custom`: the
    project's command names (`custom_commands`)."""
    import difflib

    if name.lower() in OTHER_NAMES:  # `/Sessions` too
        return OTHER_NAMES[name.lower()]
    close = difflib.get_close_matches(name, [*COMMANDS, *aliases, *custom], n=1, cutoff=cutoff)
    return close[0] if close else None


def current_repl() -> RunningRepl | None:
    """The running REPL, for commands that run a turn through it (/init: spinner, tool lines, Esc)."""
    return running[-1] if running else None


def built_in_names(cwd: Path, folders: Iterable[str]) -> list[Path]:
    """The project's command files (in `folders`) named as a built-in command is, in any case
    (`plan.md`, `q.md`, `Plan.md`): never run, since the built-in answers its name, and /help says so."""
    out: list[Path] = []
    for folder in folders:
        try:
            files = sorted((cwd / folder).glob("*.md"))
        except OSError:
            continue
        out += [f for f in files if built_in(f.stem) is not None and f.is_file()]
    return out


#: Commands about the REPL's own session: one print-mode run has nothing for them to do.
REPL_ONLY = {"exit": "-p runs one turn and ends", "clear": "-p without -c or -r starts a new session",
             "resume": "resume with -r ID (or -c for the latest) and -p"}
