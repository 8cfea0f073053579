"""Instruction files: what the user and the project tell the agent before any request.

As Claude Code and Codex users lay them out: a user-level file (`AGENTS.md` or `CLAUDE.md` beside
the user config file) for every project, then `AGENTS.md` and `CLAUDE.md` in each directory from
the repository root (the nearest folder holding `.git`) down to the working directory, so a
monorepo's root rules and a package's own rules both apply; the nearer file comes later and wins
where they disagree. The same file reached twice (a symlink `CLAUDE.md -> AGENTS.md`) counts once.

The files go into every request without anyone approving them, and a repository can make
`AGENTS.md` a symlink (git keeps them) to `../outside/secret.txt` or `/proc/self/environ`. So a
file is read only when it resolves inside the repository (the user-level file: inside the user
config dir), only when it is a regular file, and only as much of it as there is room for. A
provider key written in one (how to run the project's tests) goes out redacted, as the file read
with read_file would. A file left out is said, one line each (`left_out`): the user who wrote a
`CLAUDE.md -> ~/notes/rules.md` would otherwise find its rules silently missing. Nor is a project's
file the file tools may not read (`deny_paths`, compact-agent's own data), a link to one included.
"""

from __future__ import annotations

import os
import unicodedata
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from ... import secrets
from ...regular_file import NotRegular, read_capped
from ..safety.names import folded

NAMES = ("AGENTS.md", "CLAUDE.md")
#: The folders of a project's custom commands, ours first, then Claude Code's: `/name` in a session
#: started in the project sends the text of `name.md` there as the user's own message (ui/commands.py).
COMMAND_DIRS = (".compact-agent/commands", ".claude/commands")
MAX_CHARS = 40_000  # all files together: they are sent with every request


@dataclass
class Instructions:
    text: str
    paths: list[Path]
    #: A line for each file there that was not read, and why (`CLAUDE.md is left out of the
    #: instructions: it links to …, outside the repository …`).
    left_out: list[str] = field(default_factory=list)


def repo_root(cwd: Path) -> Path | None:
    """The nearest folder from `cwd` up that holds `.git`, or None: also when that `.git` belongs to
    another user (`foreign_git`)."""
    for d in (cwd, *cwd.parents):
        try:
            owner = (d / ".git").stat().st_uid
        except OSError:
            continue
        return None if _foreign(owner) else d
    return None


def foreign_git(cwd: Path) -> Path | None:
    """The `.git` nearest `cwd` when another user owns it (not this one, nor root), else None. On a
    machine others use, anyone may make `/tmp/.git` and put an `AGENTS.md` beside it, whose words
    would go into every request of a session run below it; git itself refuses such a repository
    ("dubious ownership"). Its folder is not taken for the repository: only the working
    directory's own files are read."""
    for d in (cwd, *cwd.parents):
        try:
            owner = (d / ".git").stat().st_uid
        except OSError:
            continue
        return d / ".git" if _foreign(owner) else None
    return None


def _foreign(owner: int) -> bool:
    me = getattr(os, "geteuid", None)  # none on Windows, where files have no such owner
    return me is not None and owner not in (me(), 0)


def search_dirs(cwd: Path) -> list[Path]:
    """The repository root first, down to `cwd` (just `cwd` outside a repository)."""
    root = repo_root(cwd)
    if root is None:
        return [cwd]
    chain = [cwd]
    while chain[-1] != root:
        chain.append(chain[-1].parent)
    return list(reversed(chain))


def load_instructions(cwd: Path, user_dir: Path | None,
                      refused: Callable[[Path], str | None] | None = None) -> Instructions:
    """The instruction files' text (see the module's docstring). `refused`: why the file tools may not
    read a resolved path, in a few words (`deny rule '.env'`), asked of each project file: a repository's
    `AGENTS.md -> .env` sent a file the user had deny-listed with every request."""
    dirs = search_dirs(cwd.resolve())
    candidates = [(user_dir / n, user_dir.resolve()) for n in NAMES] if user_dir is not None else []
    candidates += [(d / n, dirs[0]) for d in dirs for n in NAMES]
    seen: set[Path] = set()
    sections: list[str] = []
    paths: list[Path] = []
    left_out: list[str] = []
    if (theirs := foreign_git(cwd.resolve())) is not None:
        left_out.append(f"{theirs} belongs to another user: the instruction files of the folders above the working "
                        "directory are not read (git, too, refuses a repository another user owns)")
    room = MAX_CHARS
    for p, fence in candidates:
        if room <= 0:
            break
        user = user_dir is not None and p.parent == user_dir
        shown = str(p) if user else _shown(p, cwd)
        try:
            real = p.resolve()
        except (OSError, RuntimeError):  # a symlink loop
            left_out.append(f"{shown} is left out of the instructions: it is a link that loops")
            continue
        if real in seen:  # the same file reached twice (CLAUDE.md -> AGENTS.md) counts once
            continue
        if not (real == fence or fence in real.parents):
            if p.is_symlink():  # a name that is not there at all is no file left out
                where = "the user config folder" if user else "the repository"
                left_out.append(f"{shown} is left out of the instructions: it links to {real}, outside {where} "
                                "(instruction files are read only from inside it)")
            continue
        if not user and refused is not None and (why := refused(real)) is not None:
            left_out.append(f"{shown} is left out of the instructions: " + (
                f"it links to {real}, which the file tools may not read ({why})" if p.is_symlink()
                else f"the file tools may not read it ({why})"))
            continue
        seen.add(real)
        try:
            # a UTF-8 character is at most 4 bytes: this many bytes always fill the room left
            raw = read_capped(real, room * 4, truncate=True)
        except FileNotFoundError:  # none there, or a link to a file that is not there
            if p.is_symlink():
                left_out.append(f"{shown} is left out of the instructions: it links to {real}, which does not exist")
            continue
        except NotRegular:
            left_out.append(f"{shown} is left out of the instructions: it is not a regular file (a folder, a "
                            "FIFO or a device)")
            continue
        except OSError as e:
            left_out.append(f"{shown} is left out of the instructions: it cannot be read ({e.strerror or e})")
            continue
        text = secrets.redact(raw.decode("utf-8", errors="replace")).strip()
        if not text:
            continue
        text = text[:room]
        room -= len(text)
        label = "user instructions" if user else shown
        sections.append(f"## {label}\n{text}")
        paths.append(p)
    return Instructions("\n\n".join(sections), paths, [secrets.redact(line) for line in left_out])


#: How many subfolders deep a custom command's file is looked for (`a/b/c/d/e.md` is `/a:b:c:d:e`); a
#: folder whose name starts with a dot is not looked in (a `.git` kept there is not a namespace).
COMMAND_DEPTH = 4


def command_name(relative: Path | str) -> str:
    """The command a file in a command folder is, by its path there: `review.md` is `review`, a
    subfolder its namespace (`git/commit.md` is `git:commit`), and white space in a name a hyphen
    (`my cmd.md` is `my-cmd`): a command's name ends at the first space typed, so `/my cmd` ran
    nothing, though /help listed it. Composed (NFC): macOS stores `café.md` decomposed. '' for a
    name left empty (` .md`)."""
    parts = [*Path(relative).parts]
    parts[-1] = parts[-1][:-3] if folded(parts[-1]).endswith(".md") else parts[-1]
    words = ["-".join(part.split()) for part in parts]
    return "" if "" in words else unicodedata.normalize("NFC", ":".join(words))


def command_files(folder: Path) -> list[tuple[Path, int]]:
    """Each `*.md` entry of the command folder `folder` and of its subfolders (to COMMAND_DEPTH, links
    to folders not followed, those starting with a dot not entered), with how deep it is; a folder's
    own entries before its subfolders', each by name."""
    found: list[tuple[Path, int]] = []

    def walk(at: Path, depth: int) -> None:
        try:
            with os.scandir(at) as listed:
                entries = sorted(listed, key=lambda e: e.name)
        except OSError:
            return
        deeper: list[Path] = []
        for e in entries:
            if e.name.endswith(".md"):  # a file, or whatever else has the name: said when run
                found.append((at / e.name, depth))
                continue
            try:
                folder_here = e.is_dir(follow_symlinks=False)
            except OSError:
                continue
            if folder_here and depth < COMMAND_DEPTH and not e.name.startswith("."):
                deeper.append(at / e.name)
        for sub in deeper:
            walk(sub, depth + 1)

    walk(folder, 0)
    return found


def _command_at(path: Path) -> str | None:
    """The custom command a `.md` file is by where it lies: in a folder's `COMMAND_DIRS` or a
    subfolder of one (to COMMAND_DEPTH, none starting with a dot); names as a file system that
    ignores case sees them."""
    if folded(path.suffix) != ".md":
        return None
    ends = tuple("/" + folded(d) for d in COMMAND_DIRS)
    for up, above in enumerate(path.parents):
        if folded(above).endswith(ends):
            return command_name(path.relative_to(above)) or None
        if up >= COMMAND_DEPTH or above.name.startswith("."):
            return None
    return None


def command_of(cwd: Path, resolved: Path, named: str | Path | None = None) -> str | None:
    """The custom command (`deploy` for `/deploy`, `git:commit` for `git/commit.md`) whose file
    `resolved` is, else None: a `.md` file in a folder's `COMMAND_DIRS` or a subfolder of one —
    `cwd`'s, or one below it, which a session started there reads (`pkg/.claude/commands/deploy.md`)
    — by the path it resolves to or the path the model gave (`named`), or a link in `cwd`'s that
    leads to it; names as a file system that ignores case sees them (safety/names.py)."""
    for path in (resolved, None if named is None else cwd / named):
        if path is not None and (name := _command_at(path)) is not None:
            return name
    for d in COMMAND_DIRS:
        for link, _ in command_files(cwd / d):
            try:
                if link.is_symlink() and folded(link.resolve()) == folded(resolved):
                    return command_name(link.relative_to(cwd / d)) or None
            except (OSError, RuntimeError):  # a link that loops leads to no file
                continue
    return None


#: Folders the look below the working directory skips: a repository's own data, installed packages,
#: caches. No session is started in them, and a project's node_modules may hold tens of thousands.
SKIPPED_FOLDERS = frozenset({".git", ".hg", ".svn", "node_modules", "__pycache__", ".venv", "venv", ".tox",
                             ".mypy_cache", ".pytest_cache", ".ruff_cache"})
#: How many folders below the working directory are looked in, the nearest first: a look takes about
#: 10 µs a folder, twice for each `bash` command.
MAX_FOLDERS = 5_000


def files_now(cwd: Path, user_dir: Path | None = None) -> dict[str, tuple[int, int, int] | None]:
    """The files later turns and sessions obey, each by its name relative to `cwd` (else its whole
    path), with what says whether it changed (inode, size, modification time; None: not there): the
    instruction files a session started in `cwd` reads — the user-level ones in `user_dir`, which
    every session of every project reads, too — and its custom commands, and those of the folders
    below it (`sub/AGENTS.md`, `pkg/.claude/commands/ship.md`), which a session started there reads
    (`below`). Looked at around a `bash` command, which the file tools' checks do not see writing one
    (`echo … > sub/AGENTS.md`); the file tools may not write the user-level ones at all."""
    out: dict[str, tuple[int, int, int] | None] = {}
    paths = [user_dir / n for n in NAMES] if user_dir is not None else []
    paths += [d / n for d in search_dirs(cwd.resolve()) for n in NAMES]
    for folder in COMMAND_DIRS:
        paths += [f for f, _ in command_files(cwd / folder)]
    for p in [*paths, *below(cwd.resolve())]:
        try:
            st = p.stat()
            out[_shown(p, cwd)] = (st.st_ino, st.st_size, st.st_mtime_ns)
        except OSError:
            out[_shown(p, cwd)] = None
    return out


def below(cwd: Path, limit: int = MAX_FOLDERS) -> list[Path]:
    """The instruction files (`NAMES`, as a file system that ignores case sees them, as the file
    tools judge a write) and custom command files in the folders below `cwd`, nearest folders first,
    at most `limit` folders looked in; links to folders are not followed, `SKIPPED_FOLDERS` not
    entered. `cwd`'s own are `files_now`'s already."""
    names = {folded(n) for n in NAMES}
    found: list[Path] = []
    queue, looked = deque([cwd]), 0
    while queue and looked < limit:
        folder = queue.popleft()
        looked += 1
        commands = _command_at(folder / "_.md") is not None  # a command folder, or a namespace in one
        try:
            with os.scandir(folder) as entries:
                listed = sorted(entries, key=lambda e: e.name)
        except OSError:
            continue
        for e in listed:
            try:
                is_folder = e.is_dir(follow_symlinks=False)
            except OSError:
                continue
            if is_folder:
                if e.name not in SKIPPED_FOLDERS:
                    queue.append(Path(e.path))
            elif folder != cwd and (folded(e.name).rstrip(". ") in names
                                    or commands and folded(e.name).endswith(".md")):
                found.append(Path(e.path))
    return found


def _shown(p: Path, cwd: Path) -> str:
    try:
        return str(p.relative_to(cwd.resolve())) or p.name
    except ValueError:
        return str(p)
