"""/help: the commands listed, the REPL's way and print mode's.

In the REPL it lists every command, the project's own, and the keys (Enter, Esc, Ctrl-O, Ctrl-R).
`compact-agent -p /help` runs `print_help` instead (print_commands.run): only what a print-mode
run takes, said as print mode runs it, without the REPL's keys nor /exit, /clear and /resume,
which it refuses (command_registry.REPL_ONLY)."""

from __future__ import annotations

from collections.abc import Container, Mapping
from typing import TYPE_CHECKING

from rich.console import Console
from rich.padding import Padding
from rich.table import Table
from rich.text import Text

from ..agent.run.options import unreadable
from .command_registry import COMMANDS, REPL_ONLY, built_in_names, command
from .custom_commands import CUSTOM_DIRS, custom_commands, described

if TYPE_CHECKING:
    from ..agent.run.runner import AgentSession

ORDER = ("help", "status", "context", "cost", "compact", "history", "expand", "rewind", "plan", "memory", "notes",
         "model", "init", "permissions", "config", "mcp", "diff", "resume", "clear", "exit")

#: Print mode's words for the commands it runs otherwise than the REPL: it asks nothing, opens no
#: editor, has no Ctrl-O, and a switch lasts for its run.
PRINT_WORDS = {
    "compact": "summarise the conversation now: /compact [instructions] [--from N | --up-to N] (--preview, which "
               "asks before it keeps the compaction, is the REPL's: print mode does not ask); /compact "
               "--resume-auto resumes automatic compaction where failures in a row paused it",
    "expand": "the last turn's tool calls with their whole output (with -c, of the newest session); "
              "/expand N: the last N calls",
    "rewind": "list the turns; /rewind N restores files and conversation to before turn N (only with --yes: "
              "print mode does not ask)",
    "memory": "the instruction files loaded (AGENTS.md / CLAUDE.md), in order; /memory N prints the path of one",
    "model": "show the models, or switch for this run only: /model [NAME] [--window N] (no NAME: this model with "
             "a new window; compacts first if the new window is smaller)",
    "init": "look at the repository and write an AGENTS.md for it (only with --yes: print mode does not ask); "
            "/init NOTES: what to stress",
}

COMPACTION_LINE = (
    "A line \"compacted (auto, full): …\" says what started a compaction (auto: the context reached its "
    "threshold; manual: /compact; reactive: the provider refused a request as too long) and what now "
    "stands for the older messages: full, a summary the model wrote; a record of the steps written by the "
    "program, without a model; the session notes; partial_from / partial_up_to, /compact --from / --up-to. "
    "Its sizes, before → after, are of the whole request, the system prompt and tools included, as /context "
    "counts them; the conversation as it was is archived in a file the line under it names.")


#: Below this many columns /help puts each command's description under its name: beside the widest
#: name, `/exit (/quit, /q)`, 40 columns left it 19 and /help ran to 120 lines of two or three words.
BESIDE_FROM = 60


def _table(s: AgentSession, width: int, leave_out: Container[str] = (), words: Mapping[str, str] | None = None,
           exit_names: str = " (/quit, /q)") -> Table:
    """The commands, in ORDER (those it leaves out left out, each said in `words` where it has its
    own), then the project's custom commands and its files named as a built-in command is; each
    description beside its name from BESIDE_FROM columns on, under it (two spaces in) below that."""
    rows: list[tuple[str, Text]] = []
    names = sorted((n for n in COMMANDS if n not in leave_out),
                   key=lambda n: (ORDER.index(n) if n in ORDER else len(ORDER), n))
    for name in names:
        said = (words or {}).get(name, COMMANDS[name].help)
        rows.append((f"/{name}" + (exit_names if name == "exit" else ""), Text(said)))
    for name, path in custom_commands(s.cwd).items():
        about = described(path, unreadable(s.permissions))
        where = f"custom: {path.relative_to(s.cwd)}"
        rows.append((f"/{name}", Text(f"{about} ({where})" if about else where)))
    for path in built_in_names(s.cwd, CUSTOM_DIRS):  # a Claude Code project's plan.md: never run, unsaid
        rows.append(("", Text(f"{path.relative_to(s.cwd)} is not run: /{path.stem.lower()} is a built-in command "
                              "(rename the file to use it)", style="yellow")))
    if width < BESIDE_FROM:
        under = Table.grid()
        under.add_column()
        for name, what in rows:
            if name:
                under.add_row(Text(name))
            under.add_row(Padding(what, (0, 0, 0, 2)))
        return under
    t = Table.grid(padding=(0, 2))
    t.add_column(no_wrap=True)
    t.add_column()
    for name, what in rows:
        t.add_row(Text(name), what)
    return t


def _prose(c: Console, text: str) -> None:
    c.print(text, soft_wrap=False, markup=False, highlight=False)


@command("help", "list commands", takes_args=False)
async def _help(s: AgentSession, args: str, c: Console) -> None:
    c.print(_table(s, c.width))
    _prose(c, "@path in a message attaches that file (@\"a b.txt\" or @a\\ b.txt for a path with spaces; Tab "
              "completes paths, commands and their options); !cmd runs a shell command and adds its output to your next message.")
    _prose(c, COMPACTION_LINE)
    c.print("Enter sends; Esc then Enter (or Alt-Enter), or a line ending in \\, starts a new line. Esc or Ctrl-C "
            "interrupts a running turn; exit or quit alone, Ctrl-C twice at an empty prompt, or Ctrl-D, exits (Ctrl-D during a "
            "turn or a command: once it is over). Ctrl-O shows the last turn's tool "
            "output in full (/expand); Ctrl-R searches what you typed before.", soft_wrap=False)


def print_help(s: AgentSession, c: Console) -> None:
    """`compact-agent -p /help`: the commands a print-mode run takes, in its words."""

    c.print(_table(s, c.width, REPL_ONLY, PRINT_WORDS))
    _prose(c, "Each run takes one command or one prompt: compact-agent -p \"/compact --from 4\" -c runs it in the "
              "newest session, -r ID in another, and without either in a new one. /exit, /clear and /resume are "
              "the REPL's: -p runs one turn and ends, starts a new session without -c or -r, and resumes with "
              "-r ID or -c.")
    _prose(c, "@path in the prompt attaches that file (@\"a b.txt\" or @a\\ b.txt for a path with spaces).")
    _prose(c, COMPACTION_LINE)
