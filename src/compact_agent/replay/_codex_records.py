"""Codex rollout lines of newer releases that are not themselves the conversation: per-response usage
records, references to another rollout's items, and lines of Codex's own bookkeeping.

Each line is ``{timestamp, type, payload}`` as ever; the kinds below were read in openai/codex's
source (the ``RolloutItemWire`` enum, codex-rs/history/src/rollout_payload.rs at commit
5ef96ab2785f3ecddf279639eff7b1b42c906fa4; the ``RolloutItem`` enum, codex-rs/history/src/lib.rs at
04ad786998e9ec2683ba8c387aaf311adc6f1233), not seen in a real rollout:

* ``token_usage_record``: one completed response's usage, ``payload.usage`` in the shape of a
  ``token_count`` event's ``last_token_usage`` (``input_tokens`` holding ``cached_input_tokens``), with
  ``thread_id`` and ``response_id``. Codex writes it when a response completes with usage
  (``Session::record_observed_response_completed_with_details``) and still writes the ``token_count``
  event, which carries the same response's usage: `UsageRecords` makes sure only one of them counts.
  A record whose ``thread_id`` is not the rollout's own (its ``session_meta`` id) is a child agent's
  response Codex forwarded into the parent's rollout (``persist_forwarded_response_usage``): no request
  of this conversation, left out and counted. (The struct, ``TokenUsageRecord``, and the writer were read
  from the code index, which gave their text but not their paths.)
* ``rollout_reference``: ``payload.rollout_path`` (with ``thread_id``, ``max_depth``, ``nth_user_message``)
  stands for the items of another rollout, which Codex reads in its place when it resumes the thread
  (``materialize_rollout_items_for_replay``): a fork that references its parent's prefix instead of copying
  it, or a long thread whose earlier segment was rotated into a file of its own. `with_references` does
  the same, and names the file it read, when that file is in this rollout's folder or its sessions tree
  (`Reach`: the path is the transcript's word, never trusted); else it says the replay starts without it.
* ``world_state``, ``retained_context``, ``security_risk_score``, ``realtime_item`` and
  ``inter_agent_communication_metadata``: Codex's own state (context baselines it diffs against, what
  its reviewer has seen, risk scores, realtime presentation, a message's trigger flag). Left out without a
  count (`BOOKKEEPING`). Of retained context the source says so (``RetainedContextEvent``, "sparse,
  model-invisible updates", codex-rs/history/src/retained_context.rs at
  86be5320b068ef67b56348b02aa8c33706955da6; the one kind of it the model reads, a delivered assistant
  message, is written as a ``response_item``), and of realtime items (``RolloutItem::RealtimeItem``,
  "model-invisible facts", lib.rs above); that the model reads no world state or risk score but through
  the messages Codex makes of them is inferred from their use, not read.
"""

from __future__ import annotations

import os
import re
import stat
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pydantic_ai.usage import RequestUsage

from ._common import ConversationBuilder, counted
from ._recorded import decoded, loads, usage_from_mapping

BOOKKEEPING = frozenset({"world_state", "retained_context", "security_risk_score", "realtime_item",
                         "inter_agent_communication_metadata"})
MAX_REFERENCED_BYTES = 64 << 20  # as importers.MAX_DOCUMENT_BYTES, the cap on a file read whole
MAX_DEPTH = 8  # references followed at most, whatever a line allows (Codex's default is smaller)
#: References a rollout may have followed in all, and bytes read for them: a chain of forks needs a few;
#: files that each name the next several times would otherwise multiply (k**depth) into a run that never ends.
MAX_REFERENCES = 16


@dataclass
class UsageRecords:
    """Which of the two usage lines counts for a response. From the rollout's first own
    ``token_usage_record`` on, the records do and the ``token_count`` events' ``last_token_usage`` does not
    (one response's usage, recorded twice: never added twice); before it (a file an older release began),
    the events do."""

    thread: str | None = None  # the rollout's own thread id, from its first session_meta
    started: bool = False  # an own record was read: token_count events no longer give usage
    seen: set[str] = field(default_factory=set)  # response ids read
    forwarded: int = 0

    def counts_events(self) -> bool:
        return not self.started

    def read(self, payload: Any) -> tuple[RequestUsage | None, bool]:
        """The usage of an own record not read before, and whether the record is the first own one."""
        if not isinstance(payload, Mapping):
            return None, False
        thread = payload.get("thread_id")
        if self.thread is not None and thread is not None and str(thread) != self.thread:
            self.forwarded += 1
            return None, False
        response = str(payload.get("response_id") or "")
        if response and response in self.seen:
            return None, False
        self.seen.add(response)
        first, self.started = not self.started, True
        usage = usage_from_mapping(payload.get("usage"))  # unknown when a value there is no count: kept, to be said
        kept = usage is not None and (usage.input_tokens or usage.output_tokens or usage.unmeasured_requests)
        return (usage if kept else None), first

    def note(self) -> str | None:
        if not self.forwarded:
            return None
        return (f"left out {counted(self.forwarded, 'usage record')} of model calls other agents made, which Codex "
                "keeps in this thread's file too: they are no requests of this conversation")


def unmatched_usage_note(n: int) -> str:
    """The token counts Codex recorded that belong to no reply the file holds, in a user's words (it
    said "2 token_count events matched no response", the rollout's event name): what is left out and
    what it costs the replay."""
    one = n == 1
    return (f"left out {counted(n, 'token count')} Codex recorded for a model call whose reply the file does not "
            f"hold: {'it does' if one else 'they do'} not enter the fit of the replayed sizes to the recorded ones")


def own_thread(records: list[Mapping[str, Any]]) -> str | None:
    for record in records:
        payload = record.get("payload")
        if record.get("type") == "session_meta" and isinstance(payload, Mapping):
            return str(payload.get("id")) if payload.get("id") is not None else None
    return None


def with_references(records: list[Mapping[str, Any]], source: Path | None,
                    builder: ConversationBuilder) -> list[Mapping[str, Any]]:
    """``records`` with each ``rollout_reference`` line replaced by the items of the rollout it names
    (up to its ``nth_user_message``), when `Reach` lets it be read; each file read is named in a note,
    and one not read is said with why: the replay then starts without it."""
    reach = Reach.of(source)
    out = _expanded(records, source, 0, reach, set() if source is None else {source.resolve()}, own_thread(records))
    if reach.read:
        them = "it" if len(reach.read) == 1 else "them"
        left = [f"{counted(reach.damaged, 'damaged line')} of {them} left out"] if reach.damaged else []
        left += [f"{counted(reach.invalid_bytes, 'invalid UTF-8 byte')} replaced"] if reach.invalid_bytes else []
        damaged = f" ({'; '.join(left)})" if left else ""
        builder.warnings.append(
            f"read {', '.join(reach.read[:3])}{' and more' if len(reach.read) > 3 else ''}, which this rollout names "
            f"instead of copying {'its' if len(reach.read) == 1 else 'their'} items (a fork of another thread, or an "
            f"earlier part of this one): the replay starts with what the model read from there{damaged}")
    if reach.missing:
        builder.warnings.append(
            f"this rollout continues {counted(len(reach.missing), 'other rollout')} it names instead of copying "
            f"{'its' if len(reach.missing) == 1 else 'their'} items (a fork of another thread, or an earlier part of "
            f"this one), not read ({', '.join(reach.missing[:3])}): the replay starts without what the model read "
            "from there; the analyzer follows a reference only to a regular file of at most "
            f"{MAX_REFERENCED_BYTES >> 20} MB in this rollout's folder or its Codex sessions tree")
    return out


_DAY = re.compile(r"\d{2}")


def _is_day(folder: Path) -> bool:
    """Whether `folder` is a day of a Codex sessions tree (``…/YYYY/MM/DD``)."""
    day = folder.parts[-3:]
    return len(day) == 3 and bool(re.fullmatch(r"\d{4}", day[0])) and all(_DAY.fullmatch(p) for p in day[1:])


@dataclass
class Reach:
    """Where a reference may lead. A transcript is untrusted input, so the path a ``rollout_reference``
    names is never read as given: the file it names is looked for as that path, its last parts under the
    sessions tree and its name beside the rollout, and read only when it resolves (symlinks followed) to
    a regular file of at most MAX_REFERENCED_BYTES in the folder of the rollout the analyzer was given
    (resolved; not its subfolders), or in a day folder of the sessions tree that folder is a day of
    (``<root>/YYYY/MM/DD``, as Codex files its rollouts). MAX_REFERENCES references are followed in all,
    within MAX_REFERENCED_BYTES read for them, each file read once (`cache`)."""

    roots: tuple[Path, ...] = ()
    read: list[str] = field(default_factory=list)
    missing: list[str] = field(default_factory=list)
    damaged: int = 0
    invalid_bytes: int = 0  # of the lines read, bytes that are not UTF-8, read as U+FFFD (`decoded`)
    followed: int = 0
    bytes_read: int = 0
    cache: dict[Path, list[Mapping[str, Any]]] = field(default_factory=dict)

    @classmethod
    def of(cls, source: Path | None) -> Reach:
        if source is None:
            return cls()
        try:
            folder = source.resolve().parent
        except (OSError, RuntimeError):
            return cls()
        return cls((folder, folder.parent.parent.parent) if _is_day(folder) else (folder,))

    def allows(self, path: Path) -> bool:
        """Whether `path` (resolved) is in the rollout's own folder or a day folder of its sessions tree."""
        folder = path.parent
        return folder == self.roots[0] if len(self.roots) == 1 else (
            folder == self.roots[0] or (_is_day(folder) and folder.parent.parent.parent == self.roots[1]))

    def find(self, name: str, beside: Path | None) -> tuple[Path | None, str]:
        """The file a reference names, if it may be read; else why not."""
        given = Path(name)
        tried: list[Path] = []
        if given.is_absolute():
            tried.append(given)
        elif beside is not None:
            tried.append(beside.parent / given)
        tried += [root / Path(*given.parts[-4:]) for root in self.roots[1:] if len(given.parts) >= 4]
        if beside is not None:
            tried.append(beside.parent / given.name)
        why = "not found"
        for candidate in tried:
            try:
                path = candidate.resolve(strict=True)
                info = path.stat()
            except (OSError, RuntimeError, ValueError):
                continue
            if not self.roots or not self.allows(path):
                why = "outside this rollout's sessions folder"
            elif not stat.S_ISREG(info.st_mode):
                why = "not a regular file"
            elif info.st_size > MAX_REFERENCED_BYTES:
                why = f"larger than {MAX_REFERENCED_BYTES >> 20} MB"
            else:
                return path, ""
        return None, why


def _expanded(records: list[Mapping[str, Any]], source: Path | None, depth: int, reach: Reach,
              visiting: set[Path], thread: str | None) -> list[Mapping[str, Any]]:
    if not any(r.get("type") == "rollout_reference" for r in records):
        return records
    out: list[Mapping[str, Any]] = []
    for record in records:
        payload = record.get("payload")
        if record.get("type") != "rollout_reference" or not isinstance(payload, Mapping):
            out.append(record)
            continue
        name = str(payload.get("rollout_path") or "")
        found, why = reach.find(name, source) if name else (None, "no path")
        label = Path(name).name or "a rollout without a path"
        if reach.followed >= MAX_REFERENCES:
            why = f"past the {MAX_REFERENCES} references the analyzer follows in one rollout"
        if found is None or found in visiting or depth >= MAX_DEPTH or reach.followed >= MAX_REFERENCES:
            reach.missing.append(f"{label}: {why or 'a reference back to itself, or too deep'}")
            continue
        reach.followed += 1
        if found not in reach.cache:
            reach.read.append(str(found))
            reach.cache[found] = _read(found, thread, reach)
        items = _expanded(reach.cache[found], found, depth + 1, reach, visiting | {found}, thread)
        out.extend(_before_user_message(items, payload.get("nth_user_message")))
    return out


def _read(path: Path, thread: str | None, reach: Reach) -> list[Mapping[str, Any]]:
    """A referenced rollout's lines but its metadata and the usage records of another thread: a fork
    carries "model context, not the parent's cumulative usage state" (Codex's fork filter), and the
    inherited replies keep the usage of their token_count events; an earlier segment of this thread
    keeps its records. What it holds is data: lines of Codex's kinds, read as the rollout's own are."""
    records: list[Mapping[str, Any]] = []
    try:  # opened as checked: no link swapped in, no pipe to block on, no more than the bytes left to read
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_NONBLOCK", 0))
        with os.fdopen(fd, "rb") as raw:
            if not stat.S_ISREG(os.fstat(raw.fileno()).st_mode):
                return []
            data = raw.read(MAX_REFERENCED_BYTES - reach.bytes_read + 1)
        reach.bytes_read += len(data)
        if reach.bytes_read > MAX_REFERENCED_BYTES:
            return []
    except OSError:
        return []
    for raw_line in data.split(b"\n"):  # as a file is read by lines: not at the other breaks str.splitlines takes
        line, replaced = decoded(raw_line)
        if not line.strip():
            continue
        try:
            record = loads(line)
        except ValueError:
            reach.damaged += 1
            continue
        if not isinstance(record, Mapping):
            reach.damaged += 1
        elif record.get("type") != "session_meta" and not (
                record.get("type") == "token_usage_record" and _thread_of(record) != thread):
            records.append(record)
            reach.invalid_bytes += replaced
    return records


def _thread_of(record: Mapping[str, Any]) -> str | None:
    payload = record.get("payload")
    value = payload.get("thread_id") if isinstance(payload, Mapping) else None
    return None if value is None else str(value)


def _before_user_message(items: list[Mapping[str, Any]], nth: Any) -> list[Mapping[str, Any]]:
    """The items before the ``nth`` (from 0) message the person typed, as Codex cuts a fork
    (``truncate_rollout_before_nth_user_message_from_start``); all of them when there are not that many."""
    if not isinstance(nth, int) or isinstance(nth, bool) or nth < 0:
        return items
    typed = [i for i, r in enumerate(items) if r.get("type") == "event_msg"
             and isinstance(p := r.get("payload"), Mapping) and p.get("type") == "user_message"]
    if len(typed) <= nth:
        return items
    cut = typed[nth]
    while cut > 0 and _is_user_item(items[cut - 1]):  # the typed message's response item comes just before
        cut -= 1
    return items[:cut]


def _is_user_item(record: Mapping[str, Any]) -> bool:
    payload = record.get("payload")
    return (record.get("type") == "response_item" and isinstance(payload, Mapping)
            and payload.get("type") == "message" and payload.get("role") == "user")
