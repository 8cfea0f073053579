"""What `-c` says of the newer session files it passed over to open the one it continues: sessions
the model never answered in (a failed start), named by their first prompt with the `-r ID` that
goes on there (or, for one another run has open, that it has), and files that are no session (cli_resume.py `resumed_file` says it first, before
anything that can stop the run)."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from .session.answered import Continued


def continued_note(root: Path, chosen: Continued) -> str | None:
    """What `-c` says of the newer files it passed over to open `chosen.path`: sessions the model
    never answered in (each named by its first prompt as the sessions list names it, with the
    `-r ID` that goes on there), files that are no session. None when it opened the newest."""
    if not chosen.passed and not chosen.strays:
        return None
    assert chosen.path is not None
    said = f"continuing session {chosen.path.stem}"
    strays = (f"{chosen.strays} newer {'file that is' if chosen.strays == 1 else 'files that are'} not a session "
              "(compact-agent sessions lists them)") if chosen.strays else ""
    if not chosen.passed:
        return f"{said}; passed over {strays}"
    from .secrets import redact
    from .session.began_with import began_with
    from .session.typed import first_as_typed

    def named(path: Path) -> str:  # a prompt saved before its key was known is redacted before the clip
        if (prompt := began_with(path)) is None:  # not without pydantic-ai (a session compacted long ago)
            from .session.listing import scan

            prompt = scan(path).prompt
        return f"{path.stem} ({_gist(redact(first_as_typed(root, path.stem, prompt)))})"

    newest, n = chosen.passed[0], len(chosen.passed)
    if (running := _open_elsewhere(root, newest.stem)) is not None:  # not left behind: still starting, or waiting
        passed = (f"the newer session {named(newest)}, {running}" if n == 1 else
                  f"{n} newer sessions the model has not answered in (compact-agent sessions lists them), the newest "
                  f"{named(newest)}, {running}")
    else:
        passed = (f"the newer session {named(newest)}, which it never answered" if n == 1 else
                  f"{n} newer sessions it never answered (compact-agent sessions lists them), the newest {named(newest)}")
        passed += f": compact-agent -r {newest.stem} goes on there"
    return (f"continuing session {named(chosen.path)}, the newest one the model answered in; passed over {passed}"
            + (f"; and {strays}" if strays else ""))


def _open_elsewhere(root: Path, session_id: str) -> str | None:
    """`open in another run (pid N)` when another process holds session `session_id`: its `-r ID`
    would be refused. None when none does."""
    from .session import locks
    from .session.files import SessionLocked

    try:  # one this process holds (its own prompt saved early) is not another run's
        if locks.kept_here(root / session_id) is None:
            locks.check_free(root, session_id)
    except SessionLocked:
        pid = locks.holder(root / session_id)
        return "open in another run" + (f" (pid {pid})" if pid is not None else "")
    return None


def _gist(prompt: str, most: int = 40) -> str:
    """A prompt in a line's parentheses: on one line, at most `most` characters."""
    words = " ".join(prompt.split())
    return (words if len(words) <= most else words[:most - 1].rstrip() + "…") or "no prompt"
