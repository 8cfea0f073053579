"""Which print-mode prompts are slash commands: `-p "/compact"` runs a known command as the REPL
would (`slash_command`), a project's custom command is a prompt made from its file (`custom`; its turn noted as typed,
`note_typed`), and
a command of the REPL's own session or a word that names none is refused before anything is sent
(`refusal`). print_mode.py runs what these find, a command through `run`: `/help` lists what
print mode takes (help_command.print_help), not the REPL's commands and keys."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from .command_registry import EXIT_ALIASES, REPL_ONLY

if TYPE_CHECKING:
    from rich.console import Console

    from ..agent.run.runner import AgentSession



def command_name(prompt: str) -> str:
    """The word after a leading slash (`/compact now` -> "compact"; "" for a prompt without one); a
    built-in command's in its own case (`/Compact now` -> "compact": command_registry.built_in)."""
    from . import commands  # noqa: F401  (importing it registers every command)
    from .command_registry import built_in

    words = prompt.strip().split(None, 1)
    typed = words[0][1:] if words and words[0].startswith("/") else ""
    return typed.lower() if built_in(typed) is not None else typed


def slash_command(prompt: str) -> str | None:
    """`-p "/compact"` runs the command as the REPL would (a known command only): its line."""
    from .command_registry import built_in

    name = command_name(prompt)  # registers every command
    return prompt.strip().split("\n", 1)[0] if built_in(name) is not None else None


def custom(cwd: Path, typed: str) -> tuple[Path, str, str] | None:
    """A project's custom command (`/review calc.py`, `.compact-agent/commands/review.md`): its
    file, its arguments, and the lines typed after them, as the REPL runs it."""
    from .custom_commands import custom_command

    path = custom_command(cwd, command_name(typed))
    if path is None:
        return None
    first, _, rest = typed.strip().partition("\n")
    return path, first.partition(" ")[2].strip(), f"\n\n{rest.strip()}" if rest.strip() else ""


def note_typed(s: AgentSession, command: str | None, sent: str) -> None:
    """`command`, a custom command line whose file's text alone made the prompt `sent` (run_print
    knows: nothing typed or piped after it), noted by the checkpoint of the turn that sent it, as
    the REPL notes one (sent_record.py): a later run's /history, resumed view, sessions list and
    /rewind show `/review q.py`, not the command file's text. Nothing without one (None), or for a
    turn that made no checkpoint of `sent`."""
    from ..session.typed import preview
    from . import sent_record

    cp = s.checkpoints.current
    if command is None or cp is None or cp.prompt != preview(sent):
        return
    sent_record.save(s.store.root, s.session_id, cp.index, cp.prompt, sent_record.note(command, {}, sent))


def refusal(prompt: str, cwd: Path) -> str | None:
    """Why a prompt that starts with a slash is not run nor sent (bad usage, exit 2): a command of
    the REPL's own session (`/exit`, `/clear`, `/resume`), or a word that names no command (the REPL
    refuses it too; one close to a command's name is said). A path (`/usr/lib …`, a slash inside
    the word) is a question."""
    from . import commands  # noqa: F401  (importing it registers every command)
    from .command_registry import COMMANDS, OTHER_NAMES, close_command
    from .custom_commands import custom_commands

    typed = command_name(prompt)
    name = "exit" if typed in EXIT_ALIASES else typed
    if name in REPL_ONLY:
        return f"/{typed} is a REPL command: {REPL_ONLY[name]} (nothing was sent)"
    if not name or "/" in name or name in COMMANDS:
        return None
    custom = custom_commands(cwd)  # a project's own command is suggested too (`/revew` -> /review)
    close = (close_command(name, cutoff=0.75, aliases=(), custom=custom)
             or close_command(name.lower(), cutoff=0.75, aliases=(), custom=custom))
    if OTHER_NAMES.get(name.lower()) == "resume":  # /sessions: the REPL's /resume lists them, not -p
        return (f"unknown command /{name}: compact-agent sessions lists the sessions, and "
                f"{REPL_ONLY['resume']} (nothing was sent)")
    if close is not None:
        return f"unknown command /{name}; did you mean /{close}? (nothing was sent)"
    return (f"unknown command /{name}; /help lists them (nothing was sent; a question about a path: write "
            f"./{name} or put a word first)")


async def run(s: AgentSession, line: str, c: Console) -> None:
    """Run a slash command line (`slash_command`'s) as print mode runs it: `/help` alone lists what
    print mode takes; every other line runs as in the REPL (commands.run_command)."""
    from .commands import run_command
    from .help_command import print_help

    if line.strip().lower() == "/help":  # `/HELP` too
        print_help(s, c)
        return
    await run_command(s, line, c)
