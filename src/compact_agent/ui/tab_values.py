"""What Tab offers after a slash command's name: the session ids of `/resume ID`, the model names of
`/model NAME`, and the options a command takes, written after anything else (`/compact keep the
tests --pre` + Tab: `--preview`). Options were not offered: `/compact --pre` + Tab did nothing, and
`--up-to`, `--resume-auto` or `/model`'s `--window` had to be looked up in /help and typed whole."""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable
from pathlib import Path

#: What Tab offers as a command's argument: (command name, what is typed of it) -> each value with a
#: note shown beside it.
Arguments = Callable[[str, str], Iterable[tuple[str, str]]]
MAX_ARGUMENT_COMPLETIONS = 20

#: The options each command takes, with what each does in a few words (their /help line names them).
OPTIONS: dict[str, tuple[tuple[str, str], ...]] = {
    "compact": (("--preview", "show the summary, then ask before rewriting"),
                ("--from", "N: summarise messages N and later (/history numbers them)"),
                ("--up-to", "N: summarise the messages before N (/history numbers them)"),
                ("--resume-auto", "resume automatic compaction paused by failures")),
    "model": (("--window", "N: the context window in tokens (64000 or 64k)"),),
}

#: `/NAME ... -typed` at the end of the line: an option begun after the command's name and any words.
_OPTION = re.compile(r"/(\S+)[ \t](?:.*[ \t])?(-\S*)", re.S)


def option_typed(text: str) -> tuple[str, str] | None:
    """(command name, the option typed so far) where `text`, the line up to the cursor, ends in a
    word that begins with `-` after a command's name; None otherwise."""
    m = _OPTION.fullmatch(text)
    return (m[1], m[2]) if m is not None else None


def options(command: str, typed: str) -> list[tuple[str, str]]:
    """The options of `command` that begin with `typed` (not the one typed whole), each with its note."""
    return [(name, note) for name, note in OPTIONS.get(command.lower(), ())  # `/Compact --pre` too
            if name.startswith(typed) and name != typed]


def command_arguments(root: Path, session_id: Callable[[], str | None] = lambda: None) -> Arguments:
    """The values Tab offers after `/resume ` (the ids of the sessions in `root` but the one in use,
    newest first, each with its first prompt) and after `/model ` (the known models, each with its
    provider and window)."""
    def values(command: str, typed: str) -> Iterable[tuple[str, str]]:
        command = command.lower()  # `/Resume 2026` + Tab too; what is typed after it keeps its case
        if command == "resume":
            return _session_ids(root, typed, session_id())
        if command == "model" and not typed.startswith("-"):
            from ..models import REGISTRY

            return [(name, f"{info.provider} · window {info.window:,}") for name, info in REGISTRY.items()
                    if name.startswith(typed)]
        return []
    return values


def _session_ids(root: Path, typed: str, current: str | None) -> list[tuple[str, str]]:
    from ..session.files import list_sessions
    from ..session.not_a_session import is_not_a_session
    from .sessions_list import scan

    found: list[tuple[str, str]] = []
    for path in list_sessions(root):
        if path.stem.startswith(typed) and path.stem != current and not is_not_a_session(path):
            prompt = scan(path)[0]
            found.append((path.stem, prompt if len(prompt) <= 40 else prompt[:39] + "…"))
            if len(found) >= MAX_ARGUMENT_COMPLETIONS:
                break
    return found
