"""What every tool shares: its environment (ToolEnv), the failure type, the caps, how paths are shown,
and the text a tool may hand the model (tool_text: no API key, only what UTF-8 carries).

The tools (files.py, edits.py, search.py, shell.py) build on this module and the toolset
(toolset.py) on them, so none of them needs the module that assembles it.
"""

from __future__ import annotations

import contextlib
import difflib
import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ... import secrets
from ...config import Settings
from ...context.compaction.summary import path_line
from ...session.store import utf8_safe
from ..safety.checked_open import names_in, workdir_gone
from ..safety.permissions import INSTEAD, Permissions
from .checkpoints import Checkpoints
from .file_state import ReadFileState

#: Folders grep and glob never enter nor name: a version control system's store, which is not the
#: tree, and what tools write from the source (bytecode, their caches), never the source itself.
NEVER_SEARCHED = frozenset(
    {".git", ".hg", ".svn", "__pycache__", ".mypy_cache", ".pytest_cache", ".ruff_cache"}
)  # fmt: skip
#: Folders of installed packages, which grep and glob skip unless git tracks files in them, and
#: name when the search found nothing (walk.py: `_skips_installed`).
INSTALLED_DIRS = frozenset({".venv", "venv", ".tox", "node_modules"})
SKIP_DIRS = NEVER_SEARCHED | INSTALLED_DIRS
MAX_LINE_CHARS = 2_000
MAX_MATCHES = 200
MAX_GLOB_RESULTS = 200
MAX_BASH_TIMEOUT_S = 600.0
SNIPPET_CONTEXT = 3
SNIPPET_MAX_LINES = 30



class ToolFailure(str):
    """A result that reports a failed call (not found, refused, nonzero exit).

    The model reads it like any other result; the toolset marks its part with
    `metadata["compact_agent"]["tool"]["error"]`, so the REPL and stream-json can say it failed
    without guessing from the text.
    """


class NotRun(ToolFailure):
    """A call the permissions refused: it did not run. Marked apart (`["tool"]["ran"]` false), so a
    compaction never keeps it in place of an earlier run the model was using (a denied re-run of a
    failing build replaced the build errors the model was citing)."""


class Killed(ToolFailure):
    """A command killed before it finished, at its timeout: its output, cut short, tells nothing of
    what the command says when it runs through. Marked apart (`["tool"]["finished"]` false), so a
    compaction never keeps it in place of an earlier run the model was using (a re-run of a failing
    build that timed out replaced the build errors the model was citing)."""


def is_failure(part: Any) -> bool:
    meta = getattr(part, "metadata", None)
    return bool(isinstance(meta, dict) and (meta.get("compact_agent") or {}).get("tool", {}).get("error"))


#: A refusal of the user's without their words (permissions.py): `permission denied: the user declined this bash call`.
_DECLINED = re.compile(r"permission denied: the user declined this \S+ call")


def declined_mark(text: str, said: set[str] | None) -> dict[str, object]:
    """What a failed call's result `text` is marked with beside its error (the context library's
    `digest.DECLINED`, `digest.USER_SAID`): that the user declined the call, and the words they typed
    instead, as the model got them, where it is one of the refusals written with them (`said`). A
    compaction keeps those words as a message the user typed: cut with the refusal's result, only
    "do n…" of them reached the model after a fold, and none after a summary."""
    if said is not None and text in said and INSTEAD in text:
        return {"declined": True, "user_said": text.split(INSTEAD, 1)[1].lstrip()}
    return {"declined": True} if _DECLINED.fullmatch(text) else {}


@dataclass
class ToolEnv:
    """Everything the tools close over; one per session."""

    cwd: Path
    settings: Settings
    read_state: ReadFileState
    permissions: Permissions
    checkpoints: Checkpoints | None = None
    on_change: Callable[[str, dict[str, Any]], None] | None = None
    images: bool = False  # the model takes images (models.takes_images): read_file sends them


#: A zero-width joiner inside an emoji sequence (`👨‍👩‍👧`, `🏳️‍🌈`): one picture as it is printed.
_EMOJI_JOINER = re.compile("(?<=[\u2600-\u27bf\ufe0f\U0001f000-\U0001faff])\u200d(?=[\u2600-\u27bf\U0001f000-\U0001faff])")


def name_line(path: str) -> str:
    """`path` as the file tools name it to the model: on its one line, each control and invisible
    character written as its escape (`path_line`: a line break, a bidi control, a joiner between
    letters), but for a zero-width joiner inside an emoji sequence, which prints as one picture:
    `👨‍👩‍👧 family.txt` is given as it is, so a shell command the model builds from it finds the file."""
    if "\u200d" not in path:
        return path_line(path)
    return "\u200d".join(path_line(piece) for piece in _EMOJI_JOINER.split(path))


def shown_from(cwd: Path) -> Callable[[Path], str]:
    """`_shown` with the working directory resolved once, for a tool that names many paths (grep's
    matches, glob's files): resolving it for each name was most of a project-wide search's time."""
    base = Path(cwd).resolve()

    def shown(p: Path) -> str:
        try:
            return p.relative_to(base).as_posix() or "."
        except ValueError:
            return str(p)

    return shown


def _shown(env: ToolEnv, p: Path) -> str:
    """Path as the model should write it back: relative to cwd when inside, else absolute."""
    return shown_from(env.cwd)(p)


def _numbered(lines: Iterable[str], first: int) -> str:
    return "\n".join(f"{n:>6}\t{line}" for n, line in enumerate(lines, first))


def hidden(env: ToolEnv, p: Path) -> bool:
    """Whether a listing the model sees leaves `p` out: a `deny_paths` rule matches it. Denied
    files are never read, and their names are not shown either (`.env*`, `secrets/*`)."""
    return env.permissions.deny_rule(p) is not None


def hidden_note(n: int) -> str:
    """The one line a listing ends with when it left out `n` denied entries ('' for none), so the
    model knows the list is not whole and does not go looking for what it cannot see."""
    return f"{n} entr{'y' if n == 1 else 'ies'} hidden by deny_paths" if n else ""


# ---------------------------------------------------------------------------------------- read


def _not_found(env: ToolEnv, p: Path) -> str:
    # In the working directory moved or deleted meanwhile, every file is missing: that is said instead.
    if p.is_relative_to(Path(env.cwd).resolve()) and (gone := workdir_gone(env.cwd)) is not None:
        return ToolFailure(f"{name_line(_shown(env, p))} not found: {gone.strerror}")
    msg = ToolFailure(f"File not found: {_shown(env, p)}")
    # Names from inside the fence only: the folder above a dir granted with extra_dirs is outside it;
    # and none a deny rule covers (`hidden`).
    if p.parent.is_dir() and env.permissions.read_refusal(p.parent) is None:
        with contextlib.suppress(OSError):  # a folder swapped for a link out (Swapped): no names offered
            names = [e.name for e in names_in(p.parent, limit=5_000) if not hidden(env, p.parent / e.name)]
            close = difflib.get_close_matches(p.name, names, n=3, cutoff=0.6)
            if close:
                msg = ToolFailure(msg + ". Did you mean: " + ", ".join(name_line(_shown(env, p.parent / c))
                                                                       for c in close) + "?")
    return msg


def _directory_refusal(env: ToolEnv, p: Path, cap: int = 100) -> str:
    """read_file's refusal of a directory, one failure: what is in it (its first `cap` names, the
    directories first), so the model picks a file to read. A name is on its one line (`name_line`):
    one holding a line break cannot list a file the folder does not have. Entries a deny rule
    covers are left out, and counted in one line (`hidden_note`)."""
    listed = names_in(p)  # a link swapped in: Swapped, refused
    entries = sorted((e for e in listed if not hidden(env, p / e.name)), key=lambda e: (not e.is_dir, e.name))
    names = [name_line(e.name) + ("/" if e.is_dir else "") for e in entries[:cap]]
    more = f"\n… and {len(entries) - cap} more" if len(entries) > cap else ""
    note = hidden_note(len(listed) - len(entries))
    if note and not entries:
        return ToolFailure(f"{name_line(_shown(env, p))} is a directory with nothing in it to read: {note}")
    return ToolFailure(f"{name_line(_shown(env, p))} is a directory ({len(entries)} entr{'y' if len(entries) == 1 else 'ies'}); read a file in it instead:\n"
                       + "\n".join(names) + more + (f"\n{note}" if note else ""))


_ESCAPED_BYTE = re.compile("[\udc80-\udcff]")


def tool_text(text: str) -> str:
    """What a tool hands the model: no API key (a file or command may hold it), and only text
    UTF-8 can carry. A file name with bytes that are not UTF-8 arrives from the OS as surrogate
    escapes, which would fail the whole request: those bytes are shown as `\\xNN`."""
    text = secrets.redact(text)
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        text = utf8_safe(_ESCAPED_BYTE.sub(lambda m: f"\\x{ord(m.group()) - 0xDC00:02x}", text))
    return text
