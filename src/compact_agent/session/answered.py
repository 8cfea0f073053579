"""Whether the model ever answered in a session, and so which session `--continue` opens.

`-c` goes on with the newest conversation, and a session whose every request failed before an
answer (a start without a key, an endpoint that is down, a model the server does not have) holds
the user's prompts and nothing of the model: it is no conversation to go on with. Taken for the
newest, one mistyped command line took `-c` from the conversation it interrupted, and the model
was sent the failed prompts without a word of the work before them. So `-c` opens the newest
session the model answered in, and the command line says which newer sessions it passed over
(cli_resume.py): nothing in them is lost, `-r ID` opens each and sends its prompts. With no answered
session among them, `-c` opens the newest, and sends its prompt again.

Read without pydantic-ai: the command line picks the session before the REPL's prompt is up (what
`sessions` says of one is listing.py's, which needs it; the first prompt `-c`'s note names a session
by is began_with.py's). And read only as far as a reply: a file the model answered in has one
early, and a line that holds neither a response nor a boundary is not parsed, so a failed start
whose prompt was a paste of megabytes costs a scan of its bytes, not of its JSON.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from . import lines
from .files import list_sessions
from .not_a_session import is_not_a_session

#: The key of the note a rewrite's boundary carries (listing.py, `carried`).
KEY = "listing"
#: The note's key that says whether the model had answered in the history the rewrite replaced.
REPLIED = "replied"
#: The trigger of the rewrite that cuts the newest prompt to a window a server showed: context/refit.py's
#: INPUT_CUT, spelt here because that module loads pydantic-ai (a test ties the two).
INPUT_CUT = "input_cut"
#: Sessions `-c` looks at, newest first, for one the model answered in; past them it opens the newest.
LOOKED_AT = 50


def from_the_model(metadata: Any) -> bool:
    """Whether a response with `metadata` is the model's reply: ours (a turn closed unanswered, a
    mentioned file's read) are not, except a reply the stream tore (`cut`), which the model sent."""
    ours = metadata.get("compact_agent") if isinstance(metadata, dict) else None
    return not isinstance(ours, dict) or ours.get("synthetic") == "cut"


def gave_answer(entry: dict[str, Any]) -> bool:
    """Whether session entry `entry` is a reply of the model, or a rewrite of a history the model
    had answered in (its note says so, `REPLIED`). A rewrite noted before the note said so may stand
    for replies (a compaction's record, what a rewind or an edit left), unless it is the prompt cut
    to a server's window before any reply to it, of a file that was not compacted (its note counts
    messages it no longer holds). A boundary that is no object or names no trigger (no writer of ours
    makes one), and a response with no parts (no reply to read), are none."""
    message = entry.get("message")
    if entry.get("kind") == "message":
        return isinstance(message, dict) and message.get("kind") == "response" \
            and isinstance(message.get("parts"), list) and bool(message["parts"]) \
            and from_the_model(message.get("metadata"))
    boundary = entry.get("boundary")
    if entry.get("kind") != "boundary" or not (isinstance(boundary, dict) and isinstance(boundary.get("trigger"), str)):
        return False
    said = boundary.get(KEY)
    if isinstance(said, dict) and isinstance(said.get(REPLIED), bool):
        return bool(said[REPLIED])
    if boundary["trigger"] != INPUT_CUT:
        return True
    note = note_of(boundary)
    return note is not None and note[1] > note[2]


def note_of(boundary: Any) -> tuple[str, int, int] | None:
    """(first prompt, messages before, messages written) of a boundary's note; None without one
    (a session compacted before boundaries carried it, or a hand-edited one)."""
    note = boundary.get(KEY) if isinstance(boundary, dict) else None
    if not isinstance(note, dict):
        return None
    prompt, before, written = note.get("first_prompt"), _count(note.get("messages")), _count(note.get("written"))
    if not isinstance(prompt, str) or before is None or written is None:
        return None
    return prompt, before, written


def _count(v: Any) -> int | None:
    return v if isinstance(v, int) and not isinstance(v, bool) and v >= 0 else None


def answered(path: Path) -> bool:
    """Whether the model answered in the session at `path`. A file that cannot be read counts as
    answered: `-c` does not pass it over, and opening it says what is wrong."""
    try:
        for line in _worth_parsing(path):
            try:
                entry, _ = lines.parsed(line)  # a reply holding a number too long to read is still one
            except (ValueError, UnicodeDecodeError, RecursionError):
                continue
            if isinstance(entry, dict) and gave_answer(entry):
                return True
    except OSError:
        return True
    return False


def _worth_parsing(path: Path) -> Iterator[bytes]:
    """The lines of `path` that may hold a reply or a boundary: the others hold no answer (in a JSON
    string a quote is escaped: no paste spells `"response"`), and are not parsed."""
    for line in lines._file_lines(path):
        if line is not None and (b'"response"' in line or b'"boundary"' in line):
            yield line


@dataclass(frozen=True)
class Continued:
    """What `-c` opens of a project's sessions, and what it passes over to get there."""

    path: Path | None  # the session it opens; None: no file there is a session
    passed: list[Path] = field(default_factory=list)  # newer sessions the model never answered in, newest first
    strays: int = 0  # newer files that are not a session (another program's, left as they are)


def continued(found: list[Path]) -> Continued:
    """The session `-c` opens of `found` (newest first, `files.list_sessions`): the newest one the
    model answered in, among the newest `LOOKED_AT` sessions; else the newest session."""
    sessions: list[Path] = []
    strays = first = 0  # files that are no session newer than the one looked at, than the newest session
    for path in found:
        if len(sessions) >= LOOKED_AT:
            break
        if is_not_a_session(path):
            strays += 1
            continue
        if answered(path):
            return Continued(path, sessions, strays)
        first = first if sessions else strays
        sessions.append(path)
    return Continued(sessions[0], [], first) if sessions else Continued(None, [], strays)


def continued_id(root: Path) -> str | None:
    """The id of the session `-c` opens among those under `root`; None when there is none. Files
    that are no session only: the newest, which opening refuses in one line."""
    found = list_sessions(root)
    if not found:
        return None
    chosen = continued(found).path
    return (chosen or found[0]).stem
