"""A project's own slash commands: each `NAME.md` in its command folders (ours, then Claude Code's
`.claude/commands/`) is `/NAME`, its text sent as a turn (`$ARGUMENTS` filled in: command_arguments.py).

What a command file may be (a regular file inside the project, no larger than a prompt), its
`description:` for /help, and its prompt; commands.py runs one when no built-in command has its name.
"""

from __future__ import annotations

import stat
from pathlib import Path

from rich.console import Console

from ..agent.integrations.instructions import COMMAND_DIRS
from ..agent.run.mention_syntax import comparable
from ..agent.run.runner import AgentSession
from . import render
from .command_arguments import PLACEHOLDER, fill
from .command_registry import COMMANDS, EXIT_ALIASES, CommandError, current_repl

CUSTOM_DIRS = COMMAND_DIRS  # what a write there is told as (agent/safety/permissions.py) follows them too


def custom_commands(cwd: Path) -> dict[str, Path]:
    """`/name` for each `name.md` in the project's command folders (ours first, then Claude Code's).
    Whatever the name is (a FIFO, a device, a folder, a link that leads nowhere), it is the
    command's: running it says in one line why its file is not read (`command_text`), where
    leaving it out said "unknown command" of a command the user can see there. A name is keyed
    composed (NFC): macOS stores `café.md` decomposed, and /help listed `/café` that, typed, was
    "unknown command". Of two files of one name, a regular file (or a link to one) goes before one
    that is not: a dangling link at `.compact-agent/commands/review.md` does not hide a working
    `.claude/commands/review.md`."""
    found: dict[str, Path] = {}
    for folder in CUSTOM_DIRS:
        d = cwd / folder
        try:
            files = sorted(d.glob("*.md"))
        except OSError:
            continue
        for f in files:
            name = comparable(f.stem)
            if name in COMMANDS or name in EXIT_ALIASES:
                continue
            if (first := found.get(name)) is None or (not _regular(first) and _regular(f)):
                found[name] = f
    return found


def _regular(path: Path) -> bool:
    """Whether `path` is a regular file (or a link to one), looked at with stat, never opened."""
    try:
        return stat.S_ISREG(path.stat().st_mode)
    except OSError:
        return False


def _kind(path: Path) -> str:
    """What `path` is when it is not a regular file, looked at without opening it (opening a FIFO
    waits for a writer): `a FIFO`, `a device`, `a socket`, `a folder`."""
    try:
        mode = path.stat().st_mode
    except OSError:
        return "not a regular file"
    kind = ("a FIFO" if stat.S_ISFIFO(mode) else "a device" if stat.S_ISCHR(mode) or stat.S_ISBLK(mode)
            else "a socket" if stat.S_ISSOCK(mode) else "a folder" if stat.S_ISDIR(mode) else "")
    return f"not a regular file ({kind})" if kind else "not a regular file"


def custom_command(cwd: Path, name: str) -> Path | None:
    """The file of the custom command `/name` (typed composed or not), or None."""
    return custom_commands(cwd).get(comparable(name)) if name and "/" not in name else None


#: More than a prompt: a command's file longer than this is refused (the instruction files' cap).
COMMAND_FILE_CAP = 40_000


def command_text(path: Path, cap: int = COMMAND_FILE_CAP * 4) -> str:
    """The text of the custom command file `path` (at most `cap` bytes), read as instruction files
    are: only a regular file that resolves inside the project (the repository of the folder whose
    command folders hold it, else that folder). A cloned repository's `.claude/commands/review.md`
    may be a link to `~/.aws/credentials`: typing /review would send it whole as the user's message.
    Raises `CommandError`, in one line, for one that cannot be used."""
    from ..agent.integrations.instructions import repo_root
    from ..agent.safety.permissions import is_within
    from ..regular_file import NotRegular, TooLarge, read_capped

    home = path.parent.parent.parent  # <project>/.claude/commands/NAME.md
    fence = (repo_root(home.resolve()) or home).resolve()
    try:
        real = path.resolve()
    except (OSError, RuntimeError):
        raise CommandError(f"/{path.stem} is not run: {path} is a link that loops") from None
    if not is_within(real, fence):
        raise CommandError(f"/{path.stem} is not run: {path} links to {real}, outside the project (a command's "
                           "file is read only from inside it)")
    try:
        data = read_capped(real, cap, truncate=cap < COMMAND_FILE_CAP * 4)
    except NotRegular:  # opened without blocking (a FIFO's open waits for no writer), and not read
        raise CommandError(f"/{path.stem} is not run: {path} is {_kind(real)}; it was not read") from None
    except TooLarge:
        raise CommandError(f"/{path.stem} is not run: {path} is larger than {COMMAND_FILE_CAP * 4:,} bytes, "
                           "more than a prompt") from None
    except OSError as e:
        raise CommandError(f"cannot read {path}: {e.strerror or e}") from None
    return data.decode("utf-8", errors="replace").replace("\r\n", "\n").replace("\r", "\n")  # as text mode reads it


def described(path: Path) -> str:
    """The `description:` a custom command's front matter gives (as Claude Code's command files
    carry one), for /help; '' without one, or for a file that cannot be read. /help showed the
    file's path alone. One whose file is not a regular file says so: it is not run."""
    if path.exists() and not path.is_file():  # looked at, not opened: a FIFO's open would wait
        return f"not run: {_kind(path)}"
    try:
        head = command_text(path, 4096)
    except CommandError:
        return ""
    if not head.startswith("---\n") or "\n---" not in head[3:]:
        return ""
    for line in head[4:].split("\n---", 1)[0].splitlines():
        key, colon, value = line.partition(":")
        if colon and key.strip() == "description":
            value = value.strip()
            if len(value) >= 2 and value[0] == value[-1] and value[0] in "\"'":
                value = value[1:-1]
            return render.clip_words(" ".join(value.split()), 100)
    return ""


def custom_prompt(path: Path, args: str) -> str:
    """A custom command's prompt: the file's text (front matter dropped; `$ARGUMENTS` becomes what
    followed the command, else the arguments go after it). Raises `CommandError` when it cannot be
    used (`command_text`), or when it is blank: a file of front matter alone sent an empty message,
    which the provider refused, and every later message of the session with it."""
    text = command_text(path)
    front = text.startswith("---\n") and "\n---\n" in (text[3:] + "\n")  # a closing line with no newline too
    if front:
        text = (text[3:] + "\n").split("\n---\n", 1)[1]
    prompt = fill(text, args) if PLACEHOLDER in text else (f"{text.rstrip()}\n\n{args}" if args else text)
    if not prompt.strip():
        said = "holds only its front matter" if front else "is blank"
        raise CommandError(f"/{path.stem} is not run: {path} {said}, and a command needs a prompt "
                           "(write one after the front matter, or give one after the command's name)")
    return prompt.strip()


async def run_custom(s: AgentSession, path: Path, args: str, c: Console) -> None:
    """A custom command (`custom_prompt`), sent as a turn of its own."""
    prompt = custom_prompt(path, args)
    repl = current_repl()
    s.command_file = True  # the project's words, not the user's: what they name attaches inside the fence only
    try:
        if repl is None:
            turn = await s.run_turn(prompt)
            c.print(turn.output, markup=False, highlight=False)
        else:
            await repl.turn(prompt)
    finally:
        s.command_file = False
