"""Reading a session file back: never failing on content, always a valid conversation.

Torn, binary, duplicated or unknown lines are skipped, lines out of order are put back in the order
their parent ids say, a line over `MAX_LINE_BYTES` is skipped without being held whole, and a
history that would not be a valid provider conversation is repaired. Each kind of problem becomes
one warning in `Loaded.warnings`.
"""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Callable, Iterable, Iterator, Sequence
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from pydantic_ai.messages import (
    ModelMessage,
    ModelRequest,
    ModelResponse,
    RetryPromptPart,
    ToolCallPart,
    ToolReturnPart,
    UserPromptPart,
    repair_messages,
)

from ..context.plumbing.markers import OWN_TEXT
from ..context.plumbing.rounds import call_ids, return_ids
from ..words import plural
from .entries import (
    _SURROGATE_ESCAPE,
    FORMAT_VERSION,
    Boundary,
    Loaded,
    _load_message,
    from_the_model,
    utf8_safe,
)

MAX_LINE_BYTES = 64 * 1024 * 1024
_CHUNK = 1 << 20


def _file_lines(path: Path, cap: int | None = None) -> Iterator[bytes | None]:
    """The lines of `path` (without newlines), read in chunks; a line over `cap` bytes is
    dropped while it is read and yields None. Memory stays at about `cap`, whatever the file."""
    cap = MAX_LINE_BYTES if cap is None else cap
    buf = bytearray()
    skipping = False
    with path.open("rb") as f:
        while chunk := f.read(_CHUNK):
            start = 0
            while (nl := chunk.find(b"\n", start)) >= 0:
                if skipping:
                    skipping = False
                    yield None
                else:
                    buf += chunk[start:nl]
                    yield bytes(buf)
                buf.clear()
                start = nl + 1
            if not skipping:
                buf += chunk[start:]
                if len(buf) > cap:
                    buf.clear()
                    skipping = True
    if skipping:
        yield None
    elif buf:
        yield bytes(buf)


def _parse_lines(lines: Iterable[bytes | None]) -> tuple[list[dict[str, Any]], int, int]:
    """JSON objects of the file's lines, how many lines were not one (None: over the size cap),
    and how many held a lone surrogate escape (replaced by U+FFFD: see `utf8_safe`)."""
    entries: list[dict[str, Any]] = []
    bad = fixed = 0
    for line in lines:
        if line is None:
            bad += 1
            continue
        if not line.strip():
            continue
        try:
            entry = json.loads(line)
            if _SURROGATE_ESCAPE.search(line):  # rare: only then pay for the check
                text = json.dumps(entry, ensure_ascii=False)
                if (safe := utf8_safe(text)) is not text:
                    entry = json.loads(safe)
                    fixed += 1
        except (ValueError, UnicodeDecodeError, RecursionError):
            bad += 1
            continue
        if isinstance(entry, dict):
            entries.append(entry)
        else:
            bad += 1
    return entries, bad, fixed


def _in_parent_order(entries: list[dict[str, Any]]) -> tuple[list[dict[str, Any]], int]:
    """File order, except that an entry whose parent comes later in the file follows its parent.

    Appends always write a parent before its child, so this only changes a file whose lines were
    moved around; a stable topological order keeps everything else where it was. Returns the
    entries and how many were moved.
    """
    ids = {e["id"] for e in entries if isinstance(e.get("id"), str)}
    placed: set[str] = set()
    waiting: dict[str, list[dict[str, Any]]] = {}
    out: list[dict[str, Any]] = []
    moved = 0
    for entry in entries:
        parent = entry.get("parent")
        if isinstance(parent, str) and parent in ids and parent not in placed and parent != entry.get("id"):
            waiting.setdefault(parent, []).append(entry)
            moved += 1
            continue
        stack = [entry]
        while stack:
            e = stack.pop()
            out.append(e)
            eid = e.get("id")
            if isinstance(eid, str):
                placed.add(eid)
                stack.extend(reversed(waiting.pop(eid, [])))
    for rest in waiting.values():  # a cycle of parents: keep the file's order
        out.extend(rest)
    return out, moved


#: The kinds of entry a load reads; a line of any other is skipped.
KINDS = ("message", "boundary", "meta", "prompt")


def readable_entries(path: Path) -> Iterator[dict[str, Any]]:
    """The entries of `path` a load would read, each once, in file order, without building the
    messages (a listing of sessions counts them): JSON objects of a known kind; torn, binary,
    duplicated and unknown lines are skipped as `load_session_file` skips them."""
    seen: set[str] = set()
    for line in _file_lines(path):
        if line is None or not line.strip():
            continue
        try:
            entry = json.loads(line)
        except (ValueError, UnicodeDecodeError, RecursionError):
            continue
        if not isinstance(entry, dict) or entry.get("kind") not in KINDS:
            continue
        eid = entry.get("id")
        if isinstance(eid, str):
            if eid in seen:
                continue
            seen.add(eid)
        yield entry


def _prompts_settled(entries: Iterable[dict[str, Any]]) -> set[str]:
    """Ids of the prompt entries (journal.py) a message entry carried to the model, or that were
    marked unsent: the others are messages a run saved and died before it could send."""
    done: set[str] = set()
    for e in entries:
        if e.get("kind") == "message" and isinstance(e.get("prompt"), str):
            done.add(e["prompt"])
        elif e.get("kind") == "prompt" and isinstance(p := e.get("prompt"), dict) and isinstance(p.get("unsent"), str):
            done.add(p["unsent"])
    return done


def _unsent_prompt(entry: dict[str, Any]) -> ModelMessage | None:
    """The user's message of a prompt entry, as the request it would have been; None for a marker."""
    p = entry.get("prompt")
    if not isinstance(p, dict):
        raise ValueError("prompt is not an object")
    if "unsent" in p:
        return None
    text = p.get("text")
    if not isinstance(text, str):
        raise ValueError("a prompt without text")
    try:
        when = datetime.fromisoformat(entry["time"])
        part = UserPromptPart(text, timestamp=when if when.tzinfo else when.replace(tzinfo=UTC))
    except (KeyError, TypeError, ValueError):  # a time that is none: the message matters, not when
        part = UserPromptPart(text)
    return ModelRequest(parts=[part])


def load_session_file(path: Path, on_last_id: Callable[[str | None], None] | None = None,
                      own_prompt: str | None = None) -> Loaded:
    """Read a session file, skipping what cannot be understood; never raises on bad content.

    A typed message saved before its turn (a `prompt` entry) that no request carried and that was
    not marked unsent is read as the user's message at its place, unanswered (the run died before
    sending it) — except `own_prompt`, the one this process saved and is about to send."""
    messages: list[ModelMessage] = []
    boundaries: list[Boundary] = []
    meta: dict[str, Any] = {}
    if not path.exists():
        return Loaded(messages, boundaries, [], meta)
    entries, bad, fixed = _parse_lines(_file_lines(path))
    entries, moved = _in_parent_order(entries)
    settled = _prompts_settled(entries)
    seen: set[str] = set()
    last_id: str | None = None
    newer = newer_unknown = dup = unknown = 0  # newer: lines a newer version wrote, read as far as understood
    unsent: list[ModelMessage] = []  # read from prompt entries: the user's, never sent
    for entry in entries:
        v = entry.get("v")
        future = isinstance(v, int) and not isinstance(v, bool) and v > FORMAT_VERSION
        eid = entry.get("id")
        if isinstance(eid, str):
            if eid in seen:
                dup += 1
                continue
            seen.add(eid)
        kind = entry.get("kind")
        try:
            if kind == "message":
                messages.append(_load_message(entry["message"]))
            elif kind == "boundary":
                boundaries.append(Boundary.from_json(entry["boundary"]))
                messages.clear()  # a boundary starts a new history (only the last one matters)
            elif kind == "meta":
                m = entry.get("meta")
                if not isinstance(m, dict):
                    raise ValueError("meta is not an object")
                meta.update(m)
            elif kind == "prompt":
                request = _unsent_prompt(entry)
                if request is not None and eid not in settled and (eid is None or eid != own_prompt):
                    messages.append(request)
                    unsent.append(request)
            else:
                if future:  # a kind a newer version added: said with the other lines it wrote
                    newer_unknown += 1
                else:
                    unknown += 1
                continue
        except Exception:  # noqa: BLE001 - any unreadable entry is skipped, never fatal
            bad += 1
            continue
        if future:
            newer += 1
        if isinstance(eid, str):
            last_id = eid
    unanswered, never_sent = _unanswered(messages, unsent)
    at_work = not unanswered and _ends_at_results(messages)
    messages, repaired = _runnable(messages)
    read = sum(1 for e in entries if own_prompt is None or e.get("id") != own_prompt)
    problems = []
    if bad and not read:  # random bytes, not a session a crash tore: no line of it is an entry
        problems.append(f"not a session file: none of its {plural(bad, 'line')} can be read "
                        "(skipped: the conversation starts empty)")
    elif bad:
        problems.append(f"skipped {plural(bad, 'unreadable line')}")
    if fixed:
        problems.append(f"replaced invalid characters (lone surrogates) in {plural(fixed, 'line')} with U+FFFD")
    if dup:
        problems.append(f"skipped {plural(dup, 'duplicated line')}")
    if unknown:
        problems.append(f"skipped {plural(unknown, 'line')} of an unknown kind")
    if moved:
        problems.append(f"put {plural(moved, 'out-of-order line')} back in order")
    if newer or newer_unknown:
        problems.append(_newer_lines(newer, newer_unknown))
    if unanswered:  # a message the run never sent, or one whose answer never came
        what = "had not reached the model when the last run ended" if never_sent else \
            "got no answer before the last run ended"
        problems.append(f"{plural(unanswered, 'message')} you typed {what}: "
                        f"{'it is' if unanswered == 1 else 'they are'} in the conversation, unanswered")
    if at_work:
        problems.append("the last run stopped after the model's tool calls, before it answered their results "
                        "(interrupted, killed or out of turns): your next message goes on from there")
    if repaired:
        problems.append(repaired)
    warnings = [f"{path.name}: " + "; ".join(problems)] if problems else []
    if on_last_id:
        on_last_id(last_id)
    return Loaded(messages, boundaries, warnings, meta, read)


def _unanswered(messages: list[ModelMessage], unsent: list[ModelMessage]) -> tuple[int, bool]:
    """How many of the user's messages no reply of the model follows, and whether one of them is a
    typed message a run saved and died before sending (`unsent`); (0, False) unless one is, or the
    history ends at one of them (a run killed while its request was out, or one that failed: no
    answer, and nothing closed the turn). Once a later run gets a reply with them in the
    conversation, that reply, saved, is what settles them: no later load warns."""
    tail = len(messages)
    while tail and not (isinstance(m := messages[tail - 1], ModelResponse) and from_the_model(m.metadata)):
        tail -= 1
    theirs = [m for m in messages[tail:] if isinstance(m, ModelRequest) and not m.metadata
              and any(isinstance(p, UserPromptPart) for p in m.parts)]
    never_sent = any(m is u for m in theirs for u in unsent)
    left_open = bool(theirs) and messages[-1] is theirs[-1]
    return (len(theirs), never_sent) if never_sent or left_open else (0, False)


def _ends_at_results(messages: list[ModelMessage]) -> bool:
    """Whether the history ends at the results of the model's last tool calls, which no reply of
    the model follows: a run that stopped while the model was at work on them."""
    if len(messages) < 2 or not isinstance(last := messages[-1], ModelRequest) or not last.parts:
        return False
    before = messages[-2]
    return (all(isinstance(p, ToolReturnPart | RetryPromptPart) for p in last.parts)
            and isinstance(before, ModelResponse) and from_the_model(before.metadata))


def tools_ran_in_last_turn(messages: Sequence[ModelMessage]) -> bool:
    """Whether a tool call of the model got its result since the user's last typed message: a turn
    that failed after that is not retried by sending the message again, which would run the tools
    again (an `echo X >> log` twice), but goes on from what they did."""
    for m in reversed(messages):
        for p in reversed(m.parts):
            if isinstance(p, ToolReturnPart):
                return True
            if isinstance(p, UserPromptPart) and isinstance(p.content, str) and not p.content.startswith(OWN_TEXT):
                return False
    return False


def _newer_lines(read: int, skipped: int) -> str:
    """The lines a newer version wrote, in one statement: `read` were read as far as understood,
    `skipped` were of a kind this version does not know (a line of a new kind was said twice, as
    if two: 'skipped 1 line(s) of an unknown kind; 1 line(s) were written by a newer …')."""
    by, kinds = "written by a newer compact-agent", "a kind" if skipped == 1 else "kinds"
    if not read:
        return f"skipped {plural(skipped, 'line')} {by}, of {kinds} this version does not know"
    understood = "as far as it is understood" if read == 1 else "as far as they are understood"
    said = f"{plural(read + skipped, 'line')} {'was' if read + skipped == 1 else 'were'} {by}: "
    if not skipped:
        return f"{said}read {understood}"
    other = "the other" if read == 1 else f"the other {read}"
    return f"{said}skipped {skipped} of {kinds} this version does not know, read {other} {understood}"


def _runnable(messages: list[ModelMessage]) -> tuple[list[ModelMessage], str]:
    """The history as a provider accepts it, and what was changed ('' when nothing).

    A crash between saving a tool call and its result, or a hand-edited file, leaves calls without
    results or results without calls; the next request would be rejected (and `Agent.run` refuses a
    history ending in unanswered calls). Results that answer no call open at their place are
    dropped, then pydantic-ai's own repair (deterministic, idempotent) closes calls left open
    with a synthesized result and merges what became adjacent. A history whose pairs are intact
    is returned untouched — two user prompts in a row after a failed turn are normal — so the
    prompt-cache prefix does not change on reload.
    """
    if not messages or not _broken_pairs(messages):
        return messages, ""
    note = "closed tool calls whose results were lost (a crash or an edit); the conversation goes on"
    try:
        fixed = repair_messages(_drop_misplaced_results(messages))
    except Exception:  # noqa: BLE001 - fall back to the longest intact beginning below
        fixed = messages
    if not _broken_pairs(fixed):
        return fixed, note
    keep = len(fixed)
    while keep and _broken_pairs(fixed[:keep]):
        keep -= 1
    return fixed[:keep], f"dropped {plural(len(fixed) - keep, 'message')} after a tool call/result mix-up"


def _drop_misplaced_results(messages: Sequence[ModelMessage]) -> list[ModelMessage]:
    """Without tool results that answer no call open at their place (orphans, or moved before
    their call); requests left empty go too."""
    out: list[ModelMessage] = []
    open_calls: set[str] = set()
    for m in messages:
        if isinstance(m, ModelResponse):
            open_calls = {p.tool_call_id for p in m.parts if isinstance(p, ToolCallPart)}
            if m.parts:
                out.append(m)
            continue
        parts = []
        for p in m.parts:
            if isinstance(p, ToolReturnPart) or (isinstance(p, RetryPromptPart) and p.tool_name):
                if p.tool_call_id not in open_calls:
                    continue
                open_calls.discard(p.tool_call_id)
            parts.append(p)
        if parts:
            out.append(dataclasses.replace(m, parts=parts) if len(parts) != len(m.parts) else m)
    return out


def _broken_pairs(messages: Sequence[ModelMessage]) -> bool:
    """True if a tool call is not answered before the next response, or a result answers no open call."""
    open_calls: set[str] = set()
    for m in messages:
        if not m.parts:
            return True
        if isinstance(m, ModelResponse):
            if open_calls:
                return True
            open_calls = set(call_ids(m))
            continue
        for cid in return_ids(m):
            if cid not in open_calls:
                return True
            open_calls.discard(cid)
    return bool(open_calls)
