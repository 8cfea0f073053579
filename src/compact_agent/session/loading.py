"""Reading a session file back: never failing on content, always a valid conversation.

Torn, binary, duplicated or unknown lines are skipped, lines out of order are put back in the order
their parent ids say, a line over `MAX_LINE_BYTES` is skipped without being held whole (lines.py),
a typed message a run died before sending is put back at its place (last_run.py), and a history
that would not be a valid provider conversation is repaired (repair.py). Each kind of problem
becomes one warning in `Loaded.warnings` (load_warnings.py). What follows the lines' entries into
a conversation is here: a boundary starts a new history, meta entries gather, the newest line read
is the one the next append names as its parent.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from pathlib import Path
from typing import Any

from pydantic_ai.messages import ModelMessage

from .archive_paths import archive_dir_of, boundaries_here, messages_here
from .entries import FORMAT_VERSION, Boundary, Loaded, _load_message
from .last_run import (
    ANSWER_NOT_SAVED,
    AT_LIMIT,
    CALLS_NOT_SAVED,
    ENDED_ON_ERROR,
    SIGNALLED,
    STOPPED,
    _ends_at_results,
    _prompts_settled,
    _unanswered,
    _unsent_prompt,
    closed_by_signal,
    cut_by_signal,
    ended_by,
    tools_ran_in_last_turn,
)
from .lines import (
    KINDS,
    _file_lines,
    _in_parent_order,
    _parse_lines,
    digits_in,
    readable_entries,
    without_digits,
)
from .lines import MAX_LINE_BYTES as MAX_LINE_BYTES  # the cap a load reads lines with (a test lowers it here)
from .load_warnings import LoadProblems, cut_short
from .repair import _broken_pairs, _runnable, handed_back, sendable_names

# What was imported from here before the reading was split by concept.
__all__ = ["KINDS", "MAX_LINE_BYTES", "_broken_pairs", "_file_lines", "load_session_file", "newer", "readable",
           "readable_entries", "tools_ran_in_last_turn"]


def readable(entry: dict[str, Any]) -> bool:
    """Whether a load reads the entry `entry` (a line's JSON object), as `load_session_file` does:
    False for a message, boundary, meta or prompt entry that holds none it can read (a message that
    is no message, a meta that is no object), which the load skips as an unreadable line. An entry
    of another kind is readable here: the load says it is of a kind unknown, and keeps it. One with
    an integer too long to read is read without it where its digits as text do not read (`as_read`)."""
    return _reads(entry) or digits_in(entry) > 0 and _reads(without_digits(entry))


def as_read(entry: dict[str, Any]) -> tuple[dict[str, Any], int]:
    """`entry`, which holds integers too long to read (lines.parsed), as a load reads it, and how
    many of them it leaves out: each kept as its digits where the entry reads so (a tool's arguments
    or output, metadata: any JSON), else all left out (one where only a number fits, a token count,
    made the whole message unreadable), the rest of the entry kept."""
    if _reads(entry):
        return entry, 0
    return without_digits(entry), digits_in(entry)


def _reads(entry: dict[str, Any]) -> bool:
    """`readable`, for the entry as it is."""
    kind = entry.get("kind")
    try:
        if kind == "message":
            _load_message(entry["message"])
        elif kind == "boundary":
            Boundary.from_json(entry["boundary"])
        elif kind == "meta":
            return isinstance(entry.get("meta"), dict)
        elif kind == "prompt":
            _unsent_prompt(entry)
    except Exception:  # noqa: BLE001 - as the load: whatever fails, the line is unreadable
        return False
    return True


def newer(entry: dict[str, Any]) -> bool:
    """Whether a newer version of the program wrote `entry` (it may read what this one cannot)."""
    v = entry.get("v")
    return isinstance(v, int) and not isinstance(v, bool) and v > FORMAT_VERSION


def load_session_file(path: Path, on_last_id: Callable[[str | None], None] | None = None,
                      own_prompt: str | None = None, *, follow_links: bool = True) -> Loaded:
    """Read a session file, skipping what cannot be understood; never raises on bad content.

    The file is opened once and read from that descriptor only when it is a regular file
    (lines.py): regular_file.NotRegular, an OSError, for a FIFO, a device or a folder, and for a
    link when `follow_links` is False; a missing file reads as an empty session.

    A typed message saved before its turn (a `prompt` entry) that no request carried and that was
    not marked unsent is read as the user's message at its place, unanswered (the run died before
    sending it) — except `own_prompt`, the one this process saved and is about to send."""
    messages: list[ModelMessage] = []
    boundaries: list[Boundary] = []
    meta: dict[str, Any] = {}
    if not path.exists():
        return Loaded(messages, boundaries, [], meta)
    found = LoadProblems()
    entries, found.bad, found.fixed, long = _parse_lines(_file_lines(path, MAX_LINE_BYTES, follow_links=follow_links))
    entries, found.moved = _in_parent_order(entries)
    settled = _prompts_settled(entries)
    seen: set[str] = set()
    last_id: str | None = None
    unsent: list[ModelMessage] = []  # read from prompt entries: the user's, never sent
    stopped_at: int | None = None  # how many messages there were when the user (or a limit) stopped a turn
    limit = 0  # the limit of model requests that stopped it (0: the user did)
    unsaved_at: int | None = None  # how many messages there were when a run could not save an answer
    calls_at, calls = None, list[str]()  # …or the model's tool calls that ran, and their tools
    signal_at, signal = None, ""  # …or when a signal ended the run while its request was out, and which
    error_at, error = None, ""  # …or when a turn ended on an error, and its cause in a few words
    for entry in entries:
        future = newer(entry)
        eid = entry.get("id")
        if isinstance(eid, str):
            if eid in seen:
                found.dup += 1
                continue
            seen.add(eid)
        digits, left = id(entry) in long, 0
        if digits:  # a number too long to read: as text where it reads so, else left out
            entry, left = as_read(entry)
        kind = entry.get("kind")
        try:
            if kind == "message":
                messages.append(_load_message(entry["message"]))
            elif kind == "boundary":
                boundaries.append(Boundary.from_json(entry["boundary"]))
                messages.clear()  # a boundary starts a new history (only the last one matters)
                stopped_at = unsaved_at = calls_at = signal_at = error_at = None
            elif kind == "meta":
                m = entry.get("meta")
                if not isinstance(m, dict):
                    raise ValueError("meta is not an object")
                if m.get(STOPPED) is True:  # a mark of where the history was, not a setting
                    stopped_at, limit, error_at = len(messages), 0, None
                if isinstance(at := m.get(AT_LIMIT), int) and not isinstance(at, bool) and at > 0:
                    stopped_at, limit, error_at = len(messages), at, None
                if isinstance(why := m.get(ENDED_ON_ERROR), str) and why:  # the latest mark says how it ended
                    error_at, error, stopped_at = len(messages), why, None
                if m.get(ANSWER_NOT_SAVED) is True:
                    unsaved_at = len(messages)
                if isinstance(ran := m.get(CALLS_NOT_SAVED), list) and ran and all(isinstance(n, str) for n in ran):
                    calls_at, calls = len(messages), ran
                if isinstance(name := m.get(SIGNALLED), str) and name:
                    signal_at, signal, error_at = len(messages), name, None
                meta.update({k: v for k, v in m.items()
                             if k not in (STOPPED, AT_LIMIT, ANSWER_NOT_SAVED, CALLS_NOT_SAVED, SIGNALLED, ENDED_ON_ERROR)})
            elif kind == "prompt":
                request = _unsent_prompt(entry)
                if request is not None and eid not in settled and (eid is None or eid != own_prompt):
                    messages.append(request)
                    unsent.append(request)
            else:
                if future:  # a kind a newer version added: said with the other lines it wrote
                    found.newer_unknown += 1
                else:
                    found.unknown += 1
                continue
        except Exception:  # noqa: BLE001 - any unreadable entry is skipped, never fatal
            found.bad += 1
            continue
        if digits:
            found.long_kept, found.long_left = found.long_kept + digits_in(entry), found.long_left + left
        if future:  # a line a newer version wrote, read as far as it is understood
            found.newer += 1
        if isinstance(eid, str):
            last_id = eid
    sendable_names(messages)  # a call named as no provider takes it, saved by an earlier version, renamed
    found.unanswered, found.never_sent = _unanswered(messages, unsent)
    found.at_work = not found.unanswered and _ends_at_results(messages)
    found.stopped = stopped_at == len(messages) and not found.never_sent and (found.unanswered > 0 or found.at_work)
    found.limit = limit if found.stopped else 0
    found.answer_lost = unsaved_at == len(messages) and (found.unanswered > 0 or found.at_work) and not found.never_sent
    found.error = error if error_at == len(messages) and (found.unanswered or found.at_work) and not found.never_sent \
        else ""
    found.calls_lost = calls if calls_at == len(messages) and found.unanswered > 0 and not found.never_sent else []
    if found.at_work:  # a signal, or the user who stopped the turn, while the model's tools ran
        found.ended_by, found.unfinished = ended_by(messages)
    found.signalled = closed_by_signal(messages[-1]) if messages else ""  # …or while its request was out
    marked = signal if signal_at == len(messages) and not found.never_sent and (found.unanswered or found.at_work) else ""
    found.signalled = marked or found.signalled  # the mark after that request, the turn not closed yet
    if messages and (cut := cut_by_signal(messages[-1])):  # …or while its reply came: the part shown kept
        found.signalled, found.mid_reply = cut, True
    messages, found.repaired = _runnable(messages)
    messages = handed_back(messages)  # numbered as the process that saved them numbers them
    # The archives where they are now: the sessions folder follows a moved project (archive_paths.py).
    messages, boundaries = messages_here(messages, folder := archive_dir_of(path)), boundaries_here(boundaries, folder)
    found.read = sum(1 for e in entries if own_prompt is None or e.get("id") != own_prompt)
    # Emptied or cut short: said first, naming the archive the conversation can be taken back from.
    found.short = cut_short(path, [e for e in entries if own_prompt is None or e.get("id") != own_prompt])
    if on_last_id:
        on_last_id(last_id)
    as_archive = dataclasses.replace(found, unanswered=0, never_sent=False, answer_lost=False, at_work=False,
                                     stopped=False, limit=0, ended_by="", unfinished=[], calls_lost=[],
                                     signalled="", mid_reply=False, error="")
    return Loaded(messages, boundaries, found.warnings(path.name), meta, found.read, as_archive.warnings(path.name),
                  found.notes(), found.bad, found.answer_lost, found.calls_lost, marked)
