"""The sessions of a project, newest first, as `compact-agent sessions`, `/resume` and the
`--resume` picker list them: id, when, size, and the first thing the user asked.

A file under a session's name that is no session (random bytes, `[1,2,3]`: session/not_a_session.py)
is listed as what it is, `not a session file`, in every list, and numbered in none: `-r ID` refuses
to open it, and it was listed as `0 messages  (no prompt)`, first, as a session to resume."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from pathlib import Path

from ..session import listing, not_a_session
from ..session.store import list_sessions
from ..session.typed import first_as_typed
from ..words import plural
from .visible import one_line, visible

MAX_LISTED = 20


@dataclass
class SessionRow:
    id: str
    modified: str
    messages: int
    first_prompt: str
    unanswered: bool = False  # the model never answered in it: a start that failed, or was killed
    folded: int = 0  # older failed starts with the same prompt and nothing else, not listed (`fold`)
    not_a_session: bool = False  # a file under a session's name that is none: `-r` refuses it
    in_use: bool = False  # another compact-agent process has it open (`-r`'s list: IN_USE before its prompt)

    @property
    def pickable(self) -> bool:
        """Whether the row is a session a list numbers (to be resumed by its number)."""
        return not self.not_a_session


def first_prompt(path: Path, max_entries: int = 200) -> tuple[str, int]:
    """(first user prompt, number of messages) of a session file, without loading them
    (session/listing.py says what is counted)."""
    prompt, n, _ = scan(path, max_entries)
    return prompt, n


def scan(path: Path, max_entries: int = 200) -> tuple[str, int, bool]:
    """`first_prompt`, and whether the model never answered in the session: no reply of its follows
    the first prompt (a compaction's record counts as one). A session whose request went out and
    failed (an endpoint that is down) is not marked, though no model read it either."""
    listed = listing.scan(path, max_entries)
    prompt = one_line(listed.prompt)
    shown = first_as_typed(path.parent, path.stem, prompt)  # `/review q.py`, `/init`
    return shown, listed.shown, bool(prompt) and not listed.replied


def resumed_size(path: Path, held: int) -> str:
    """What `/resume` says of the size of a session it opened holding `held` messages: the count the
    list showed, and, when compactions folded some, the messages the history now holds. Fewer held
    with no compaction in the file (a line the load could not read, a result whose call was lost)
    is no compaction: the line said `compacted to` of a session never compacted."""
    scanned = listing.scan(path)
    if scanned.shown <= held or not scanned.base:
        return plural(held, "message")
    return f"{plural(scanned.shown, 'message')}, compacted to {held}"


#: Session files looked at for a listing, at most: folded ones are not listed, and take no place.
MAX_SCANNED = 10 * MAX_LISTED


def session_rows(root: Path, limit: int = MAX_LISTED, fold: bool = True) -> list[SessionRow]:
    """The newest `limit` sessions. With `fold`, an older failed start — a session of one message
    the model never answered — whose prompt a newer unanswered session listed begins with is not
    listed: that one counts it (`tried 3 times`). Every retry of a bad key or an endpoint that was
    down left a `hi` of its own in the list. Nothing is lost: the newer session holds the same words
    (and `-c` goes on with the newest), the older file stays, `-r ID` opens it and `sessions --all`
    lists it."""
    rows: list[SessionRow] = []
    failed: dict[str, SessionRow] = {}  # first prompt -> the newest unanswered session listed with it
    for p in list_sessions(root)[:MAX_SCANNED if fold else limit]:
        # Past the rows listed, the older retries of a failed start listed are still counted (its
        # `tried N times` fell as they went past the listing); only small files can be one.
        full = len(rows) >= limit
        if full and not failed:
            break
        try:
            stat = p.stat()
        except OSError:  # gone since it was listed (another process's session that saved nothing)
            continue
        if full and stat.st_size > FAILED_START_BYTES:
            continue
        if not_a_session.is_not_a_session(p):
            if not full:
                rows.append(SessionRow(p.stem, _when(stat.st_mtime), 0, "", not_a_session=True))
            continue
        prompt, lines, unanswered = scan(p)
        if fold and unanswered and lines == 1 and (newer := failed.get(prompt)) is not None:
            newer.folded += 1
            continue
        if full:
            continue
        row = SessionRow(p.stem, _when(stat.st_mtime), lines, prompt, unanswered)
        if fold and unanswered:
            failed.setdefault(prompt, row)
        rows.append(row)
    return rows


#: The largest session file looked at past the rows listed: a failed start holds its prompt alone.
FAILED_START_BYTES = 256 * 1024


def _when(mtime: float) -> str:
    return datetime.fromtimestamp(mtime).strftime("%Y-%m-%d %H:%M")


def unlisted_line(root: Path, rows: list[SessionRow], opens: str) -> str | None:
    """The line under a listing that `session_rows` cut at its limit: how many older sessions it
    leaves out, and how to reach them (`opens`: `-r ID`, `/resume ID`). None when it lists (or
    counts, a failed start folded into a newer row) every one. The listing stopped at 20 without a
    word, as if the directory held no older session."""
    left = len(list_sessions(root)) - len(rows) - sum(r.folded for r in rows)
    if left <= 0:
        return None
    return (f"… {plural(left, 'older session')} not listed (compact-agent sessions --all lists every one; "
            f"{opens} opens any)")


#: A row cut to a terminal's width keeps at least this much of the first prompt: narrower, the id goes.
MIN_PROMPT = 20
#: What `-r`'s list says before the prompt of a session another process has open: picked, it is refused.
IN_USE = "(open in another run) "
#: What a list says of a file under a session's name that is no session, in place of its size and prompt.
NOT_A_SESSION = "not a session file (-r cannot open it; it is left as it is)"


def numbered(rows: list[SessionRow], fit: int) -> tuple[list[str], list[SessionRow]]:
    """The lines of a numbered list (`-r`'s, `/resume`'s) cut to `fit` columns, and the sessions by
    their number (the first is number 1). A file that is no session is listed without a number."""
    sessions: list[SessionRow] = []
    lines = []
    for r in rows:
        if r.pickable:
            sessions.append(r)
        lines.append(format_row(len(sessions) if r.pickable else None, r, fit=fit, numbers=True))
    return lines, sessions


def format_row(i: int | None, r: SessionRow, width: int = 70, fit: int | None = None, numbers: bool = False) -> str:
    """One session's line: `  1. ID  when  size  first prompt` (the prompt cut to `width`). `fit`:
    the terminal's width, which the line is cut to with `…` (the REPL's `-r` list and `/resume`). A
    numbered row too narrow for `MIN_PROMPT` of the prompt drops the id, as it is picked by number:
    at 60 columns the id, date and size alone took the line, and the prompt wrapped under it.
    `numbers`: the row is in a numbered list (a file that is no session is under the numbers)."""
    from rich.cells import cell_len

    from . import cells
    from .render import clip_words

    # After the first prompt of a session the model never answered in: a run killed while it
    # started, or one that could not reach the model (no key, an endpoint down, a model not served).
    if r.not_a_session:
        indent = "     " if numbers else "  "
        line = f"{indent}{r.id}  {r.modified}  {NOT_A_SESSION}"
        if fit is None:
            return line
        fit = max(20, fit - 1)
        if len(line) > fit:  # narrow: the date goes, not the words saying what the row is
            line = f"{indent}{r.id}  {NOT_A_SESSION}"
        return line if len(line) <= fit else line[:fit - 1].rstrip() + "…"
    tries = f", tried {r.folded + 1} times" if r.folded else ""
    mark = f"  (unanswered{tries})" if r.unanswered and r.first_prompt else ""
    # Cut as it is shown: a control's escape (`\x1b`) takes four columns where the character took
    # none, so a prompt cut before them came out wider than the row, and wrapped under it.
    first = visible(r.first_prompt)
    head = f"{i:>3}. " if i is not None else "  "
    count = f"{r.messages:>5} {'message ' if r.messages == 1 else 'messages'}"
    busy = IN_USE if r.in_use else ""  # before the prompt: cut last
    columns = f"{head}{r.id}  {r.modified}  {count}  "
    if fit is None:
        return f"{columns}{busy}{clip_words(first, width - len(mark) - len(busy)) + mark or '(no prompt)'}"
    fit = max(20, fit - 1)  # the last column: a terminal may wrap there by itself
    if i is not None and fit - len(columns) - len(busy) < MIN_PROMPT:
        columns = f"{head}{r.modified}  {count}  "
    columns += busy
    room = min(width, fit - len(columns))
    if not first:
        prompt = "(no prompt)"
    elif cell_len(first) + len(mark) <= room or room - len(mark) >= MIN_PROMPT // 2:
        prompt = clip_words(first, room - len(mark)) + mark
    else:
        prompt = clip_words(first, max(1, room))
    line = columns + prompt
    return line if cell_len(line) <= fit else cells.head(line, fit - 1).rstrip() + "…"  # in cells: cells.py
