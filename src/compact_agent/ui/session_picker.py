"""`--resume` without an id: the project's sessions listed, one chosen by its number before the REPL
starts, and opened as `-r ID` would open it: with the options it remembers (cli_resume.py).

`options_for` is cli_resume.py's rule for what a session runs with, given by the command line; the
REPL's prompt is not up yet, so the list is printed and read with a prompt of its own.

Ctrl-D quits (the question says so, exit 0); Esc or Ctrl-C leaves the list as an interrupt does
elsewhere: `Left` says `compact-agent: interrupted; no session was opened`, exit 130. Esc was read
as the start of Alt-Enter, so Esc then Enter resumed session 1, and Ctrl-C left with exit 0 and no
word.

A session another compact-agent process has open (another REPL, a `-p` run) is marked in the list
(`sessions_list.IN_USE`); picked, it is refused in one line, as `/resume` refuses it, and the
question is asked again (`n` starts a new session). It was listed unmarked, and picking it ended
the command with exit 1 after a note on the options it would have run with. Enter picks the first
session no other process has open.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from prompt_toolkit import PromptSession
from prompt_toolkit.key_binding import KeyBindings, KeyPressEvent
from rich.console import Console

from ..agent.run.options import SessionOptions, session_root
from ..session.files import SessionLocked
from ..session.locks import check_free

if TYPE_CHECKING:
    from ..cli_resume import SessionSettings

#: The line a picker left with Esc or Ctrl-C ends the command with (exit 130, as an interrupt).
LEFT = "interrupted; no session was opened"


class Left(Exception):  # noqa: N818 - what happened, not an error
    """Esc or Ctrl-C at `-r`'s list: the command ends as interrupted (cli.py), no session opened."""

    def __init__(self) -> None:
        super().__init__(LEFT)


def _keys() -> KeyBindings:
    kb = KeyBindings()

    @kb.add("escape", eager=True)  # at once: not the start of Alt-Enter, which then took Enter as 1
    def _(event: KeyPressEvent) -> None:
        event.app.exit(exception=KeyboardInterrupt())

    return kb


async def pick(opts: SessionOptions, console: Console, prompt_io: dict[str, Any],
               before_prompt: Callable[[], None] | None,
               options_for: Callable[[Path], SessionSettings] | None) -> bool:
    """Set `opts` to the session chosen (and its options); False when the user quit with Ctrl-D
    instead; `Left` raised on Esc or Ctrl-C. Where there is no session, the command line refused
    `-r` before (cli_resume.py); one removed since then leaves none to choose: a new one starts."""
    from .sessions_list import numbered, session_rows, unlisted_line

    root = session_root(opts.cwd.resolve(), opts.home)
    listed = session_rows(root)
    for row in listed:
        row.in_use = row.pickable and held_elsewhere(root, row.id) is not None
    lines, rows = numbered(listed, console.width)
    for line in lines:  # files under a session's name that are none are listed, unnumbered
        console.print(line, markup=False, highlight=False)
    if (more := unlisted_line(root, listed, "-r ID")) is not None:
        console.print(more, style="dim", markup=False, highlight=False)
    if not rows:
        console.print("no sessions to resume in this directory; starting a new one")
        return True
    picker: PromptSession[str] = PromptSession(**prompt_io)
    first_free = next((n for n, row in enumerate(rows, 1) if not row.in_use), 1)
    question, refusal = _words(len(rows), first_free)
    while True:
        if before_prompt is not None:
            before_prompt()
        try:
            answer = (await picker.prompt_async(question, key_bindings=_keys())).strip()
        except EOFError:
            return False
        except KeyboardInterrupt:
            raise Left from None
        if not answer:
            answer = str(first_free)
        if answer.lower() in ("n", "new"):
            console.print("starting a new session")
            return True
        if answer.isdigit() and 1 <= int(answer) <= len(rows):
            if (busy := held_elsewhere(root, rows[int(answer) - 1].id)) is not None:  # before its options are said
                others = "give another number, " if len(rows) > 1 else ""
                console.print(f"{busy}; {others}n for a new session, or Ctrl-D to quit", markup=False, highlight=False)
                continue
            opts.session_id = rows[int(answer) - 1].id
            if options_for is not None:  # as `-r ID` would run it: with its own options
                from ..session import remembered

                picked = options_for(session_root(opts.cwd.resolve(), opts.home) / f"{opts.session_id}.jsonl")
                picked.apply(opts)
                remembered.from_now_on(picked.remember)
                if picked.note is not None:  # a remembered value it cannot use, an endpoint left
                    console.print(picked.note, markup=False, highlight=False)
            return True
        console.print(refusal)


def held_elsewhere(root: Path, session_id: str) -> str | None:
    """The words for session `session_id` when another process has it open (None: free), as
    `/resume` says it (session/locks.py)."""
    try:
        check_free(root, session_id)
    except SessionLocked:
        return (f"session {session_id} is in use by another compact-agent process (wait for it to finish, then "
                "pick it again)")
    return None


def _words(count: int, default: int = 1) -> tuple[str, str]:
    """The question and the answer to a wrong number: one session is no choice between numbers.
    `default`: the number Enter picks, the first session no other process has open."""
    if count == 1:
        return ("resume it? (Enter or 1, Ctrl-D to quit) ",
                "1 is the only session: Enter or 1 resumes it, Ctrl-D quits")
    return (f"resume which? (number, Enter for {default}, Ctrl-D to quit) ",
            f"give a number from 1 to {count}")
