"""The sessions of a project, newest first, as `compact-agent sessions`, `/resume` and the
`--resume` picker list them: id, when, size, and the first thing the user asked."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import Any

from ..context.compaction.summary import MARK, is_synthetic_text
from ..session.entries import from_the_model
from ..session.loading import readable_entries
from ..session.store import list_sessions
from .visible import one_line

MAX_LISTED = 20


@dataclass
class SessionRow:
    id: str
    modified: str
    messages: int
    first_prompt: str
    unanswered: bool = False  # the model never answered in it: a start that failed, or was killed
    folded: int = 0  # older failed starts with the same prompt and nothing else, not listed (`fold`)


def first_prompt(path: Path, max_entries: int = 200) -> tuple[str, int]:
    """(first user prompt, number of messages) of a session file, without loading them: only the
    messages a load reads are counted (a torn or garbage line is none; a compaction's boundary, a
    note of the session's are no message), the number `/resume` then says it resumed."""
    prompt, n, _ = scan(path, max_entries)
    return prompt, n


def scan(path: Path, max_entries: int = 200) -> tuple[str, int, bool]:
    """`first_prompt`, and whether the model never answered in the session: no reply of its follows
    the first prompt (a compaction's record counts as one). A typed message no request carried (a
    `prompt` entry saved the moment it was typed, session/journal.py, that the run died before
    sending) is read by a load as the user's message, unanswered, so it is counted and can be the
    first prompt: a session killed while it started held only that, and was listed as '0 messages
    (no prompt)'. Only such a session was marked unanswered; one whose request went out and failed
    (an endpoint that is down) was not, though no model had read it either."""
    prompt = ""
    n = 0
    at = -1  # where the first prompt of a message was, counted in messages
    early: list[tuple[int, str, str]] = []  # (where, entry id, text) of typed messages before it
    typed: set[str] = set()  # the ids of every typed message (prompt entry) with text
    settled: set[str] = set()  # those a request carried, or marked unsent
    replied = False  # a reply of the model, or a compaction's record of a conversation
    try:
        for entry in readable_entries(path):
            kind = entry.get("kind")
            replied = replied or kind == "boundary" or _a_reply(entry)
            if kind == "prompt":
                saved, eid = entry.get("prompt"), entry.get("id")
                if not (isinstance(saved, dict) and isinstance(eid, str)):
                    continue
                if isinstance(saved.get("unsent"), str):
                    settled.add(saved["unsent"])
                elif isinstance(saved.get("text"), str):
                    typed.add(eid)
                    if not prompt and n <= max_entries:
                        early.append((n, eid, saved["text"]))
                continue
            if kind != "message":
                continue
            if isinstance(entry.get("prompt"), str):
                settled.add(entry["prompt"])
            n += 1
            if prompt or n > max_entries:
                continue
            message = entry.get("message") or {}
            prompt = _first_words(message) if isinstance(message, dict) else ""
            at = n - 1 if prompt else at
    except OSError:
        return "", 0, False
    unsent = [(where, text) for where, eid, text in early if eid not in settled]
    if unsent and (not prompt or unsent[0][0] <= at):
        prompt = one_line(unsent[0][1])
    return as_typed(prompt), n + len(typed - settled), bool(prompt) and not replied


def _a_reply(entry: dict[str, Any]) -> bool:
    """Whether `entry` saves a reply of the model (not the program's close of a turn)."""
    message = entry.get("message")
    return entry.get("kind") == "message" and isinstance(message, dict) and message.get("kind") == "response" \
        and from_the_model(message.get("metadata"))


INIT_START = "Look at this repository and write an AGENTS.md"  # more_commands.INIT_PROMPT's first words


def as_typed(prompt: str) -> str:
    """A prompt as the user typed it: `/init` for the prompt we send behind that command (the
    user never wrote it), anything else as it is."""
    return "/init" if prompt.startswith(INIT_START) else prompt


def _first_words(message: dict[str, Any]) -> str:
    """The first thing the user typed in a stored message: its first prompt of theirs, or, in a
    compaction's message (our text), the oldest of the user's messages it carries. On one line, its
    control characters kept: the listing shows them as escapes (`\\r`), as a prompt was typed."""
    meta = message.get("metadata")
    ours = meta.get(MARK) if isinstance(meta, dict) else None
    carried = ours.get("user_messages") if isinstance(ours, dict) else None
    for part in message.get("parts", []) if isinstance(message.get("parts"), list) else []:
        if not (isinstance(part, dict) and part.get("part_kind") == "user-prompt" and isinstance(part.get("content"), str)):
            continue
        if is_synthetic_text(part["content"]):
            if isinstance(carried, list) and carried and isinstance(carried[0], str):
                return one_line(carried[0])
            continue
        return one_line(part["content"])
    return ""


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
        if len(rows) >= limit:
            break
        prompt, lines, unanswered = scan(p)
        try:
            when = datetime.fromtimestamp(p.stat().st_mtime).strftime("%Y-%m-%d %H:%M")
        except OSError:  # gone since it was listed (another process's session that saved nothing)
            continue
        row = SessionRow(p.stem, when, lines, prompt, unanswered)
        if fold and unanswered:
            if lines == 1 and (newer := failed.get(prompt)) is not None:
                newer.folded += 1
                continue
            failed.setdefault(prompt, row)
        rows.append(row)
    return rows


def format_row(i: int | None, r: SessionRow, width: int = 70) -> str:
    from .render import clip_words

    # After the first prompt of a session the model never answered in: a run killed while it
    # started, or one that could not reach the model (no key, an endpoint down, a model not served).
    tries = f", tried {r.folded + 1} times" if r.folded else ""
    mark = f"  (unanswered{tries})" if r.unanswered and r.first_prompt else ""
    prompt = clip_words(r.first_prompt, width - len(mark)) + mark
    head = f"{i:>3}. " if i is not None else "  "
    count = f"{r.messages:>5} {'message ' if r.messages == 1 else 'messages'}"
    return f"{head}{r.id}  {r.modified}  {count}  {prompt or '(no prompt)'}"
