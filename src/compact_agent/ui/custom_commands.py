"""A project's own slash commands: each `NAME.md` in its command folders (ours, then Claude Code's
`.claude/commands/`) is `/NAME`, its text sent as a turn (`$ARGUMENTS` filled in: command_arguments.py).
A subfolder is a namespace: `git/commit.md` is `/git:commit`.

What a command file may be (a regular file inside the project, no larger than a prompt), its
`description:` for /help, and its prompt; commands.py runs one when no built-in command has its name.
"""

from __future__ import annotations

import stat
from collections.abc import Callable
from pathlib import Path

from rich.console import Console

from ..agent.integrations.instructions import COMMAND_DIRS, command_files, command_name
from ..agent.run.mention_syntax import comparable
from ..agent.run.runner import AgentSession
from . import render
from .command_arguments import PLACEHOLDER, fill
from .command_registry import CommandError, built_in, current_repl

CUSTOM_DIRS = COMMAND_DIRS  # what a write there is told as (agent/safety/permissions.py) follows them too

def _candidates(cwd: Path) -> dict[str, list[Path]]:
    """Every command file by the name it would be, the one that is run first in its list."""
    named: dict[str, list[tuple[tuple[object, ...], Path]]] = {}
    for index, folder in enumerate(CUSTOM_DIRS):
        for path, depth in command_files(cwd / folder):
            relative = path.relative_to(cwd / folder)
            name = command_name(relative)
            if not name or built_in(name) is not None:  # `Plan.md` too: /Plan is /plan (command_registry.built_in)
                continue
            spaced = any(ch.isspace() for ch in str(relative))
            named.setdefault(name, []).append(((index, spaced, depth, str(relative)), path))
    out: dict[str, list[Path]] = {}
    for name, files in named.items():
        if len(files) > 1:  # only then looked at: a regular file goes first
            files.sort(key=lambda f: (not _regular(f[1]), *f[0]))
        out[name] = [path for _, path in files]
    return out


def custom_commands(cwd: Path) -> dict[str, Path]:
    """`/name` for each `name.md` in the project's command folders (ours first, then Claude Code's),
    and `/space:name` for `space/name.md` in a subfolder of one. Whatever the name is (a FIFO, a
    device, a folder, a link that leads nowhere), it is the command's: running it says in one line
    why its file is not read (`command_text`), where leaving it out said "unknown command" of a
    command the user can see there. Names are composed (`command_name`). Of files of one name the
    first goes (`also_named` says the others in /help): a regular file (or a link to one) before one
    that is not (a dangling link at `.compact-agent/commands/review.md` does not hide a working
    `.claude/commands/review.md`), then ours before Claude Code's, a name as it is spelled before one
    whose spaces became hyphens, and a folder's own file (`git:commit.md`) before a subfolder's."""
    return {name: files[0] for name, files in _candidates(cwd).items()}


def _place(path: Path) -> tuple[Path, Path] | None:
    """The project and the command folder a command file is in (the nearest one above it)."""
    for above in path.parents:
        for folder in CUSTOM_DIRS:
            depth = len(Path(folder).parts)
            if above.parts[-depth:] == Path(folder).parts and len(above.parts) > depth:
                return above.parents[depth - 1], above
    return None


def name_of(path: Path) -> str:
    """The command a command file is (`/git:commit` for `.claude/commands/git/commit.md`)."""
    place = _place(path)
    return (command_name(path.relative_to(place[1])) if place is not None else "") or path.stem


def also_named(path: Path) -> list[Path]:
    """The other files of the command `path` is the file of, which are not run since it goes first."""
    place = _place(path)
    if place is None:
        return []
    files = _candidates(place[0]).get(name_of(path), [])
    return files[1:] if files and files[0] == path else []


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
    """The file of the custom command `/name` (typed composed or not), or None. Typed in another case
    (`/REVIEW`), the one command of that name in any case (as built-in names are matched); of two
    (`Deploy.md` and `deploy.md`) the one spelled as typed only."""
    if not name or "/" in name:
        return None
    found = custom_commands(cwd)
    typed = comparable(name)
    alike = [path for known, path in found.items() if known.casefold() == typed.casefold()]
    return found.get(typed) or (alike[0] if len(alike) == 1 else None)


#: More than a prompt: a command's file longer than this is refused (the instruction files' cap).
COMMAND_FILE_CAP = 40_000


class Unreadable(CommandError):
    """A command's file the file tools may not read (`command_text`'s `refused`): `why`, in a few words."""

    def __init__(self, line: str, why: str) -> None:
        super().__init__(line)
        self.why = why


def command_text(path: Path, cap: int = COMMAND_FILE_CAP * 4, refused: Callable[[Path], str | None] | None = None
                 ) -> str:
    """The text of the custom command file `path` (at most `cap` bytes), read as instruction files
    are: only a regular file that resolves inside the project (the repository of the folder whose
    command folders hold it, else that folder). A cloned repository's `.claude/commands/review.md`
    may be a link to `~/.aws/credentials`: typing /review would send it whole as the user's message.
    Nor one the file tools may not read (`refused`: options.unreadable), which it may link to as well.
    Raises `CommandError`, in one line, for one that cannot be used."""
    from ..agent.integrations.instructions import repo_root
    from ..agent.safety.permissions import is_within
    from ..regular_file import NotRegular, TooLarge, read_capped

    place = _place(path)
    home = place[0] if place is not None else path.parent.parent.parent  # <project>/.claude/commands/NAME.md
    fence = (repo_root(home.resolve()) or home).resolve()
    name = name_of(path)
    try:
        real = path.resolve()
    except (OSError, RuntimeError):
        raise CommandError(f"/{name} is not run: {path} is a link that loops") from None
    if not is_within(real, fence):
        raise CommandError(f"/{name} is not run: {path} links to {real}, outside the project (a command's "
                           "file is read only from inside it)")
    if refused is not None and (why := refused(real)) is not None:
        where = (f"{path} links to {real}, which the file tools may not read" if path.is_symlink()
                 else f"the file tools may not read {path}")
        raise Unreadable(f"/{name} is not run: {where} ({why})", why)
    try:
        data = read_capped(real, cap, truncate=cap < COMMAND_FILE_CAP * 4)
    except NotRegular:  # opened without blocking (a FIFO's open waits for no writer), and not read
        raise CommandError(f"/{name} is not run: {path} is {_kind(real)}; it was not read") from None
    except TooLarge:
        raise CommandError(f"/{name} is not run: {path} is larger than {COMMAND_FILE_CAP * 4:,} bytes, "
                           "more than a prompt") from None
    except OSError as e:
        raise CommandError(f"cannot read {path}: {e.strerror or e}") from None
    return data.decode("utf-8", errors="replace").replace("\r\n", "\n").replace("\r", "\n")  # as text mode reads it


def described(path: Path, refused: Callable[[Path], str | None] | None = None) -> str:
    """The `description:` a custom command's front matter gives (as Claude Code's command files
    carry one), for /help; '' without one, or for a file that cannot be read. /help showed the
    file's path alone. One whose file is not a regular file says so: it is not run; so does one the
    file tools may not read (`refused`, as `command_text` asks it), whose front matter is not shown. The
    other files of its name (`also_named`) are said after it, not run: a `.claude/commands/git/commit.md`
    beside ours was left out without a word."""
    if path.exists() and not path.is_file():  # looked at, not opened: a FIFO's open would wait
        return f"not run: {_kind(path)}"
    place = _place(path)
    others = "; ".join(f"{o.relative_to(place[0]) if place else o}, /{name_of(path)} too, is not run"
                       for o in also_named(path))
    about = _description(path, refused)
    return f"{about}; {others}" if about and others else about or others


def _description(path: Path, refused: Callable[[Path], str | None] | None) -> str:
    try:
        head = command_text(path, 4096, refused)
    except Unreadable as e:
        return f"not run: the file tools may not read it ({e.why})"
    except (CommandError, OSError, RuntimeError):  # the project's folder resolved before the file: a loop there too
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


def custom_prompt(path: Path, args: str, refused: Callable[[Path], str | None] | None = None) -> str:
    """A custom command's prompt: the file's text (front matter dropped; `$ARGUMENTS` becomes what
    followed the command, else the arguments go after it). Raises `CommandError` when it cannot be
    used (`command_text`), or when it is blank: a file of front matter alone sent an empty message,
    which the provider refused, and every later message of the session with it."""
    text = command_text(path, refused=refused)
    front = text.startswith("---\n") and "\n---\n" in (text[3:] + "\n")  # a closing line with no newline too
    if front:
        text = (text[3:] + "\n").split("\n---\n", 1)[1]
    prompt = fill(text, args) if PLACEHOLDER in text else (f"{text.rstrip()}\n\n{args}" if args else text)
    if not prompt.strip():
        said = "holds only its front matter" if front else "is blank"
        raise CommandError(f"/{name_of(path)} is not run: {path} {said}, and a command needs a prompt "
                           "(write one after the front matter, or give one after the command's name)")
    return prompt.strip()


async def run_custom(s: AgentSession, path: Path, args: str, c: Console) -> None:
    """A custom command (`custom_prompt`), sent as a turn of its own."""
    from ..agent.run.options import unreadable

    prompt = custom_prompt(path, args, unreadable(s.permissions))
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
