"""A print-mode prompt saved the moment the command line is read, before its session is built.

Building a session imports pydantic-ai and the provider's SDK, connects MCP servers and runs the
SessionStart hooks: seconds in which a Ctrl-C or a SIGTERM lost the `-p` query (or what `-p -`
read from stdin), while the REPL saves a typed line the moment Enter is pressed. So print mode
saves its prompt the same way (`session/journal.py`, `save_prompt_early`): in the session it will
open, as a `prompt` entry the turn's request then names. A run that ends before sending it — killed,
interrupted, unable to reach the model — leaves it there, and `-c` (or `-r ID`, for a new session
`-c` passes over: session/answered.py) shows it as the REPL's early-saved message is shown: typed,
unanswered. Only a run refused as bad usage when the session
opens (a window too small for the tools) takes it back, as every other refused command line saves
nothing: a session it made goes, an earlier one is left with the history it had.

Nothing here imports pydantic-ai: the command line calls it before anything heavy is loaded.
"""

from __future__ import annotations

import contextlib
from dataclasses import dataclass

from .agent.run.options import SessionOptions, resolve_session_id, session_root
from .session import journal
from .session.files import SessionError, SessionLocked


@dataclass(frozen=True)
class Early:
    """Where a prompt was saved before its session was built."""

    session_id: str
    existed: bool  # an earlier session (-c, -r ID), not one this run starts
    entry_id: str | None  # the prompt's entry; None when it could not be saved

    @property
    def resolved(self) -> tuple[str, bool]:
        """What the session is opened by (AgentSession's `resolved`)."""
        return self.session_id, self.existed


def save_early(opts: SessionOptions, prompt: str) -> tuple[Early | None, str | None]:
    """Save `prompt` in the session `opts` opens: where, or the line that says it could not be
    saved, on which the run stops, nothing sent. A session whose file or folder cannot be written
    (read-only, a full disk) failed its first write anyway, seconds later, before any request: it
    said so twice, after a warning that promised the prompt 'is saved when sent'. (None, None) when
    the session is another process's or its id names none: opening it says so, as it always did."""
    try:
        session_id, existed = resolve_session_id(opts)
    except FileNotFoundError:
        return None, None
    root = session_root(opts.cwd.resolve(), opts.home)
    try:
        entry = journal.save_prompt_early(root, session_id, prompt)
    except SessionLocked:
        return None, None
    except (OSError, SessionError) as e:
        from .error_text import first_line

        said = str(e) if isinstance(e, SessionError) else (
            f"could not write the session file {e.filename or root / f'{session_id}.jsonl'}: {e.strerror or first_line(e)}")
        if not existed:  # what the write made of a new session goes, as a refused run's does
            take_back(opts, Early(session_id, existed, None))
        kept = ", and what was saved before is intact" if existed else ""
        return Early(session_id, existed, None), f"{said}; nothing was sent to the model{kept}"
    return Early(session_id, existed, entry), None


def take_back(opts: SessionOptions, early: Early) -> None:
    """The run was refused as bad usage before its session opened: undo the save (journal.py,
    `take_back_early`); a session it made leaves no folder behind. Best effort: a failure leaves
    the prompt saved, unanswered, which a resume shows. A prompt that could not be saved
    (`entry_id` None) leaves its lock to let go of, and of a new session what the write made."""
    from .session import locks
    from .session.store import SessionStore

    root = session_root(opts.cwd.resolve(), opts.home)
    with contextlib.suppress(OSError):
        if early.entry_id is not None:
            journal.take_back_early(root, early.session_id, early.entry_id, new=not early.existed)
        elif (lock := locks.kept(root / early.session_id)) is not None:
            try:  # a new session's file holds a part of a line at most: no session yet
                if not early.existed:
                    (root / f"{early.session_id}.jsonl").unlink(missing_ok=True)
            finally:
                locks.release(lock)
        if not early.existed:
            SessionStore(root, early.session_id).remove_if_unused()
