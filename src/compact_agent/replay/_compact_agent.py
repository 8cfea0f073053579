"""Our own session files: rebuild the full, uncompacted conversation from the archive chain.

A compacted session file starts with a ``boundary`` entry naming the archive that holds the file as
it was before that compaction (which may itself start with an earlier boundary), followed by the
new history: the summary request, files re-read after the compaction (marked in metadata
``{"compact_agent": {"synthetic": "restore"}}``), results still in use kept apart from their rounds
(``"kept"``) and a verbatim tail that repeats the end of the archive; a partial compaction keeps
the archive's first rounds before its summary instead.
Replaying our strategy against the *compacted* file would measure our own earlier compactions, so
the chain is followed back and the pieces are put together again:

    full(file) = full(archive) + (file's messages − summary − restored reads − kept results
                                  − context given back − the kept head − the tail that is the archive's end)

What comes after that tail is new, even where the same words came before it.

A rewind boundary (``/rewind``) is different, as are an edited history and a prompt cut to a window a
server's refusal taught (``input_cut``): the messages after it are the truth and the archive's later
messages were undone or replaced, so the result is the archive cut where the messages both hold
end, then the file's own; none of them is a compaction. An archive
that is missing (moved, deleted), empty or unreadable (no line of it a session entry) ends the chain with a
warning: what the file holds is replayed.

A session file is untrusted input, so the archive a boundary names is never read as given (`Archives`):
only a file the agent itself wrote there is, one of this session's archives in the `compact-history/`
folder beside it (`<id>-<stamp>.jsonl`, session/archives.py), found by that name, and read only when it
is a regular file there (a link out of the folder is not followed). A session's id is its file's name
(session/store.py), so a session renamed (its file moved to another name, under which the agent
resumes it) keeps the archives written under the id it had: an archive of an id no session file beside
it holds any more is this session's too, once its name leads there (another session's, whose file is
beside it, is not). Each file is read once: a boundary that names its own file, or an archive already
read (a loop), ends the chain, as does one past MAX_CHAIN archives or past MAX_CHAIN_BYTES of them. The
chain is walked in a loop, not by recursion, so its length takes no stack. Each archive not followed is
said in a note, with why. What the session's layers 1-4 kept out of its requests, which its recorded
usage does not count, is read from its event log (_own_events.py), for the fit of its sizes (sizing.kept_out);
the stretches a rewind undid (`Undone`) are said to it, as what was decided there no longer stands.
"""

from __future__ import annotations

import errno
import json
import os
import stat
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from pydantic_ai.messages import (
    ModelMessage,
    ModelRequest,
    ModelResponse,
    ToolCallPart,
    ToolReturnPart,
    UserPromptPart,
)

from ..context.compaction.summary import SUMMARY_MARK, UPDATE_HEADS, is_synthetic_text
from ..regular_file import NotRegular
from ..session.answered import INPUT_CUT
from ..session.archives import archive_moment
from ..session.listing import NOT_FOLDING
from ..session.orphans import ARCHIVES
from ..session.removal import size_text
from ..session.store import Boundary, Loaded, load_session_file
from ._validity import make_valid
from ._words import plural

KINDS = frozenset({"message", "boundary", "meta", "prompt"})  # the kinds a session file holds (session/lines.py)
MAX_CHAIN = 1_000
#: The most bytes of archives one chain is read back through. Every archive of a chain is loaded before
#: they are joined, as messages weighing several times their bytes, so the count of archives alone let a
#: chain of 1,000 large ones hold gigabytes. What a real long session's chain weighs: each archive is the
#: session file as it was at a compaction (the history then, not the archives before it), so a chain
#: holds the session's messages about once. benchmarks/soak.py (the long session of guarantees.md, at its
#: 16K window, no faults) wrote 5 archives of 172-479 KB in 150 requests, 1.6 MB in all, 10.6 KB a request;
#: the long Claude Code sessions of the analyzer's transcripts weigh 17.7-22.2 KB a request in their own
#: files. A session of 1,000 requests then has a chain of 11-22 MB: 256 MB is ten times that, some
#: 12,000 requests at the heavier rate, and bounds what a crafted or runaway chain can make the replay hold.
MAX_CHAIN_BYTES = 256 << 20

ViewEvent = tuple[datetime, int, str]
"""(when, our estimate of the tokens it kept out of the request, and for how long: "kept" for every
later request, "alone" for its own, "reset" a compaction, which ends what the ones before kept out,
"forget" a compaction a rewind undid, which ends them too but is none the replay lacks): _own_events.py."""
Undone = tuple[datetime | None, datetime | None]
"""A stretch of the session a rewind undid (or an edited history: an answer asked for again, a branch),
as (after, until): from the last response it kept (None: the start) to the rewrite."""


def looks_like_record(record: Any) -> bool:
    return isinstance(record, dict) and record.get("kind") in KINDS and "v" in record and "id" in record


def _ours(m: Any) -> Any:
    meta = getattr(m, "metadata", None)
    ours = meta.get("compact_agent") if isinstance(meta, dict) else None
    return ours.get("synthetic") if isinstance(ours, dict) else None


def _copied_ids(messages: Sequence[ModelMessage]) -> set[str]:
    """The tool calls a compaction wrote in again: files re-read (``restore``, their parts marked)
    and results still in use kept apart from the rounds they came in (``kept``, the messages
    marked; the archive holds the same call and result where they first came)."""
    return {p.tool_call_id for m in messages for p in m.parts
            if isinstance(p, (ToolReturnPart, ToolCallPart)) and (_ours(p) == "restore" or _ours(m) == "kept")}


def _is_compaction_text(p: Any) -> bool:
    return (isinstance(p, UserPromptPart) and isinstance(p.content, str)
            and p.content.startswith((SUMMARY_MARK, *UPDATE_HEADS)))


def strip_compaction(messages: Sequence[ModelMessage], copied: set[str] | None = None) -> list[ModelMessage]:
    """Drop the summary text and what a compaction wrote in again (`_copied_ids`, of `messages`
    unless given) from the history."""
    copied = _copied_ids(messages) if copied is None else copied
    out: list[ModelMessage] = []
    for m in messages:
        parts = [p for p in m.parts if not (
            _is_compaction_text(p) or (isinstance(p, (ToolReturnPart, ToolCallPart)) and p.tool_call_id in copied))]
        if len(parts) == len(m.parts):
            out.append(m)
        elif parts:
            out.append(_with_parts(m, parts))
    return out


def _with_parts(m: ModelMessage, parts: list[Any]) -> ModelMessage:
    if isinstance(m, ModelRequest):
        return ModelRequest(parts=parts, timestamp=m.timestamp, instructions=m.instructions)
    assert isinstance(m, ModelResponse)
    return ModelResponse(parts=parts, usage=m.usage, model_name=m.model_name, timestamp=m.timestamp,
                         provider_name=m.provider_name, provider_response_id=m.provider_response_id,
                         finish_reason=m.finish_reason)


def content_key(m: ModelMessage) -> str:
    """What a message says (kind and parts), ignoring timestamps and metadata a rewrite may change."""
    parts = []
    for p in m.parts:
        body = getattr(p, "content", None)
        if isinstance(p, ToolCallPart):
            body = p.args if isinstance(p.args, str) else json.dumps(p.args, sort_keys=True, default=str)
        parts.append([type(p).__name__, str(body), getattr(p, "tool_call_id", "")])
    return json.dumps([m.kind, parts], ensure_ascii=False, default=str)


@dataclass(frozen=True)
class Archives:
    """Where the archives of the session file `path` may be read: the `compact-history/` folder
    beside the file (links resolved), and the session ids whose archives are named there. A file given from that folder
    itself (an archive analyzed on its own) reads the archives of its own session beside it."""

    folder: Path
    ids: frozenset[str]

    @classmethod
    def of(cls, path: Path) -> Archives:
        real = Path(os.path.realpath(path))  # a session file reached through a link: its archives are beside the file
        if real.parent.name == ARCHIVES and (ids := _archive_ids(real.name)):
            return cls(real.parent, ids)
        return cls(real.parent / ARCHIVES, frozenset({real.stem}))

    def renamed(self, boundary: Boundary) -> Archives:
        """These archives, and those of the id `boundary`'s archive is named for where no session file
        beside the folder holds that id any more: the id this session had before its file was renamed."""
        gone = {i for i in _archive_ids(Path(boundary.archive).name) - self.ids
                if not os.path.lexists(self.folder.parent / f"{i}.jsonl")}
        return Archives(self.folder, self.ids | gone) if gone else self

    def missing(self, saved: str) -> str:
        """Why the archive saved as `saved` is not read: none of its name here (a moved project's `saved`)."""
        here = self.folder / Path(saved).name
        moved = "" if "\0" not in saved and os.path.realpath(saved) == str(here) else f" (recorded as {saved})"
        return f"is missing: no {here.name} in {self.folder}/{moved}" if saved else "is missing (not recorded)"

    def find(self, boundary: Boundary, read: set[str]) -> tuple[Path | None, str]:
        """The archive `boundary` names, if it may be read (not one of `read`, the real paths read
        already); else None and why it is not followed ("" when it is missing)."""
        name = Path(boundary.archive).name
        if not boundary.archive or not name:
            return None, ""
        if not any(archive_moment(Path(name), i) is not None for i in self.ids):
            return None, f"it is not one of this session's archives in the {ARCHIVES}/ folder beside it"
        candidate = self.folder / name
        try:
            real = os.path.realpath(candidate, strict=True)
            st = os.stat(real)
            folder = os.path.realpath(self.folder, strict=True)
        except (OSError, RuntimeError):  # missing, or a loop of links
            return None, ""
        if os.path.dirname(real) != folder:
            return None, f"it is a link out of the {ARCHIVES}/ folder (to {real})"
        if not stat.S_ISREG(st.st_mode):
            return None, "it is not a regular file (a pipe, a device or a folder)"
        if real in read:
            return None, "it was read already in this chain of archives (a loop)"
        return Path(real), ""


def _archive_ids(name: str) -> frozenset[str]:
    """The session ids an archive's name can be of: every start of it before a `-` that leaves a stamp."""
    return frozenset(name[:i] for i, c in enumerate(name) if c == "-" and archive_moment(Path(name), name[:i]))


def _chain(path: Path) -> tuple[list[tuple[Path, Loaded]], list[str]]:
    """The session file and the archives its boundaries lead back to, newest first, each read once,
    with the warnings of their loads and the note on where the chain ends, when not at its start."""
    loaded = load_session_file(path)
    warnings = list(loaded.warnings)
    chain = [(path, loaded)]
    archives = Archives.of(path)
    read = {os.path.realpath(path)}
    weight = 0  # of the archives read back so far
    while loaded.boundaries:
        boundary = loaded.boundaries[-1]
        archives = archives.renamed(boundary)
        archive, why = archives.find(boundary, read)
        if archive is not None and len(chain) > MAX_CHAIN:
            archive, why = None, f"it is past the {MAX_CHAIN:,} archives the analyzer follows back"
        size, before = (_size(archive) if archive is not None else 0), loaded  # before: the archive's, once read
        if archive is not None and weight + size > MAX_CHAIN_BYTES:
            archive, why = None, (f"the archives read back weigh {size_text(weight)} and it {size_text(size)}, past the "
                                  f"{size_text(MAX_CHAIN_BYTES)} the analyzer reads back in one chain")
        if archive is not None:
            read.add(str(archive))
            try:  # opened once, a link not followed: what `find` checked cannot be swapped for a pipe or a link since
                before = load_session_file(archive, follow_links=False)
                why = _nothing_in(before, size)  # an emptied or garbled archive: as a missing one, said why
            except OSError as e:
                why = _unreadable(e)
        if archive is None or why:
            said = f"({boundary.archive}) is not followed: {why}" if why else archives.missing(boundary.archive)
            warnings.append(f"{path.name}: the archive before a {boundary.strategy} compaction {said}; "
                            "replaying from the compacted history")
            break
        loaded, path = before, archive
        weight += size
        warnings += loaded.archive_warnings
        chain.append((path, loaded))
    return chain, warnings


def _nothing_in(loaded: Loaded, size: int) -> str:
    """Why the archive `loaded` (of `size` bytes) holds no conversation to rebuild from, or "" when it
    does. Joined, an archive emptied (`: > file`) or of bytes that are no session file gave the compacted
    history said to be rebuilt, its compaction placed before the first message: its usage went unused."""
    if loaded.messages or loaded.boundaries:
        return ""
    if loaded.unreadable and not loaded.read:
        return f"none of its {plural(loaded.unreadable, 'line')} can be read (it is not a session file)"
    return "it is empty" if not size or not loaded.read else "it holds no message"


def _size(archive: Path) -> int:
    """The bytes of `archive` (0 when it cannot be told: its open says why)."""
    try:
        return os.stat(archive).st_size
    except OSError:
        return 0


def _unreadable(e: OSError) -> str:
    """Why an archive that passed `Archives.find` could not be read when it was opened."""
    if isinstance(e, NotRegular):
        return ("it is a link now (not followed)" if e.errno == errno.ELOOP
                else "it is not a regular file now (a pipe, a device or a folder)")
    return f"it cannot be read ({e.strerror or e})"


def rebuild(path: Path) -> tuple[list[ModelMessage], list[dict[str, Any]], list[str], list[Undone]]:
    """(full messages, compactions with their message index, warnings, the stretches rewinds undid)
    for one session file."""
    chain, warnings = _chain(path)
    _, oldest = chain.pop()
    messages = strip_compaction(oldest.messages) if oldest.boundaries else list(oldest.messages)
    compactions: list[dict[str, Any]] = []
    undone: list[Undone] = []
    del oldest
    while chain:
        _, loaded = chain.pop()
        messages, compactions = _joined(messages, compactions, loaded, undone)
    return messages, compactions, warnings, undone


def _joined(prior: list[ModelMessage], compactions: list[dict[str, Any]], loaded: Loaded, undone: list[Undone]
            ) -> tuple[list[ModelMessage], list[dict[str, Any]]]:
    """The conversation `prior` (the archive's, rebuilt) with what the file `loaded` holds after its
    newest boundary, and the compactions so far with that boundary's; a rewrite that undid some of
    `prior` adds the stretch it undid to `undone`."""
    boundary = loaded.boundaries[-1]
    keys = [content_key(m) for m in prior]
    if boundary.trigger in NOT_FOLDING:
        rest = strip_compaction(loaded.messages)  # a rewind, an edited history, a prompt cut to the window: as it now is
        n = 0
        while n < len(rest) and n < len(prior) and content_key(rest[n]) == keys[n]:
            n += 1
        if n < len(prior) and boundary.trigger != INPUT_CUT:  # a prompt cut to the window undid no decision
            undone.append(_stretch(prior[:n], rest[n:], boundary))
        return prior[:n] + rest[n:], [c for c in compactions if c["message_index"] <= n]
    copied = _copied_ids(loaded.messages)
    at = _last_compaction_message(loaded.messages)
    head, after = strip_compaction(loaded.messages[:at], copied), strip_compaction(loaded.messages[at:], copied)
    after = after[_restored_context(after):]
    rest = [*_not_held(head, keys), *after[_kept_tail(after, keys):]]
    compactions.append({"source": "compact-agent", "kind": "boundary", "trigger": boundary.trigger,
                        "strategy": boundary.strategy, "pre_tokens": boundary.tokens_before,
                        "post_tokens": boundary.tokens_after, "timestamp": boundary.time,
                        "message_index": len(prior), "summary_chars": 0})
    return prior + rest, compactions


def _stretch(kept: Sequence[ModelMessage], after: Sequence[ModelMessage], boundary: Boundary) -> Undone:
    """What the rewrite `boundary` undid, in time: after the last response of the messages it `kept`,
    until its own time (a rewind saved by an older version has none: until the first message `after` it)."""
    last = next((utc(m.timestamp) for m in reversed(kept) if isinstance(m, ModelResponse)), None)
    until = boundary.when or next((utc(m.timestamp) for m in after if m.timestamp is not None), None)
    return last, until


def _last_compaction_message(messages: Sequence[ModelMessage]) -> int:
    """Where the newest compaction's message is (0 when none is found): what a compaction keeps
    of the rounds before it (a partial one's head) comes before it, the verbatim tail after it."""
    return next((i for i in range(len(messages) - 1, -1, -1)
                 if any(_is_compaction_text(p) for p in messages[i].parts)), 0)


def _restored_context(after: Sequence[ModelMessage]) -> int:
    """How many messages at the start of `after` carry only our own context a compaction gives back
    (the plan, MCP servers' notes, a hook's output), which the archive holds where it first came."""
    n = 0
    while n < len(after) and isinstance(after[n], ModelRequest) and all(
            isinstance(p, UserPromptPart) and is_synthetic_text(p.content) for p in after[n].parts):
        n += 1
    return n


def _not_held(head: Sequence[ModelMessage], keys: Sequence[str]) -> list[ModelMessage]:
    """The messages of `head` the archive does not hold, in order (a kept head is the archive's own
    rounds, found in the order they came)."""
    out, at = [], 0
    for m in head:
        key = content_key(m)
        found = next((j for j in range(at, len(keys)) if keys[j] == key), None)
        if found is None:
            out.append(m)
        else:
            at = found + 1
    return out


def _kept_tail(after: Sequence[ModelMessage], keys: Sequence[str]) -> int:
    """How many of the messages after a compaction's message are its verbatim tail: the longest
    run from their start that is the archive's end. What follows is new, even where the same words
    came earlier ("go on" typed again)."""
    if not keys:
        return 0
    mine = [content_key(m) for m in after[:len(keys)]]
    for n in range(len(mine), 0, -1):
        if mine[n - 1] == keys[-1] and mine[:n] == list(keys[len(keys) - n:]):
            return n
    return 0


def load(path: Path) -> tuple[list[ModelMessage], list[dict[str, Any]], list[str], list[Undone]]:
    """The rebuilt conversation made provider-valid (as every importer's output is)."""
    messages, compactions, warnings, undone = rebuild(path)
    valid, notes = make_valid(messages)
    if len(valid) != len(messages):
        # Indices moved: re-anchor each compaction at the first message that survived after it.
        survivors = {id(m): i for i, m in enumerate(valid)}
        for c in compactions:
            later = [survivors[id(m)] for m in messages[c["message_index"]:] if id(m) in survivors]
            c["message_index"] = later[0] if later else len(valid)
    if compactions:
        warnings.append(f"rebuilt the full conversation across {plural(len(compactions), 'compaction')} from the archives")
    return valid, compactions, warnings + notes, undone


def utc(t: datetime) -> datetime:
    return t if t.tzinfo is not None else t.replace(tzinfo=UTC)
