"""What a listing of sessions says of one (`compact-agent sessions`, `-r`'s list, `/resume`): the
prompt it began with, how many messages it has had, whether the model ever answered in it.

Read from the session file alone, whatever compactions did to it: a compaction rewrites the file as
its summary and what it kept (the full transcript goes to an archive), so before it does, the store
notes in the boundary entry what the listing said of the file it replaces (`carried`). A listing
then never opens an archive: one line per session costs one read of the (compacted, small) file.
Before that note, a compacted session was listed by its new first message and its count shrank at
each compaction: a session of 60 messages that began 'Requirement M0: …' was listed as
'12 messages  Requirement M14: … …[cut; …]', the oldest user message the summary still carried.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..context.compaction.summary import MARK, is_synthetic_text
from ..shell_message import as_typed_with_output
from .answered import INPUT_CUT, REPLIED, gave_answer, note_of
from .answered import KEY as KEY  # the key of the boundary note `carried` writes (store.py)
from .began_with import PROMPT_CHARS, a_message
from .lines import readable_entries
from .loading import readable

if TYPE_CHECKING:
    from pydantic_ai.messages import ModelMessage

#: Rewrites that write the conversation as it now stands (a rewind, an edited history, the newest
#: prompt cut to the server's window): their messages are counted themselves. Any other rewrite is
#: a compaction, whose messages (the summary, the files restored, the tail kept) stand for messages
#: already counted.
NOT_FOLDING = ("rewind", "history_changed", INPUT_CUT)


@dataclass
class Listed:
    prompt: str = ""  # the session's first prompt (its first `PROMPT_CHARS` characters), as typed
    messages: int = 0  # every message the conversation has had, those compactions folded away too
    unsent: int = 0  # typed messages no request carried (a load reads each as the user's message)
    replied: bool = False  # the model answered (a compaction's record of a conversation counts)
    base: int = 0  # of `messages`, those counted before the last rewrite
    written: int = 0  # messages the last rewrite wrote (they stand for some of `base`)
    current: int = 0  # messages since the last rewrite, those it wrote included

    @property
    def shown(self) -> int:
        """The count a listing shows: the messages, and the typed ones a load would add."""
        return self.messages + self.unsent


def scan(path: Path, max_entries: int = 200) -> Listed:
    """What a listing says of the session file at `path`, without loading its messages. Only the
    messages a load reads are counted (a torn or garbage line is none; a compaction's boundary, a
    note of the session's are no message). A typed message no request carried (a `prompt` entry
    saved the moment it was typed, session/journal.py, that the run died before sending) is read by
    a load as the user's message, unanswered, so it is counted and can be the first prompt."""
    out = Listed()
    at = -1  # where the first prompt of a message was, counted in messages
    early: list[tuple[int, str, str]] = []  # (where, entry id, text) of typed messages before it
    typed: set[str] = set()  # the ids of every typed message (prompt entry) with text
    settled: set[str] = set()  # those a request carried, or marked unsent
    n = 0
    try:
        for entry in readable_entries(path):
            kind = entry.get("kind")
            out.replied = out.replied or gave_answer(entry)
            if kind == "boundary" and (note := note_of(entry.get("boundary"))) is not None:
                out.prompt, out.base, out.written = note
                n, at, early = 0, -1, []
                continue
            if kind == "prompt":
                saved, eid = entry.get("prompt"), entry.get("id")
                if not (isinstance(saved, dict) and isinstance(eid, str)):
                    continue
                if isinstance(saved.get("unsent"), str):
                    settled.add(saved["unsent"])
                elif isinstance(saved.get("text"), str):
                    typed.add(eid)
                    if not out.prompt and n <= max_entries:
                        early.append((n, eid, saved["text"]))
                continue
            if kind != "message":
                continue
            if not readable(entry):  # valid JSON that holds no message: the load skips it, and so does the count
                continue
            if isinstance(entry.get("prompt"), str):
                settled.add(entry["prompt"])
            if not a_message(entry.get("message")):  # the program's close of a turn, an attachment's read
                continue
            n += 1
            if out.prompt or n > max_entries:
                continue
            message = entry.get("message") or {}
            out.prompt = _first_words(message) if isinstance(message, dict) else ""
            at = n - 1 if out.prompt else at
    except OSError:
        return Listed()
    unsent = [(where, text) for where, eid, text in early if eid not in settled]
    if unsent and (not out.prompt or unsent[0][0] <= at):
        out.prompt = unsent[0][1]
    out.prompt = as_typed_with_output(out.prompt)[:PROMPT_CHARS]  # a `!cmd`'s output not in its place
    out.current = n
    out.messages = out.base + max(0, n - out.written)
    out.unsent = len(typed - settled)
    return out


def counted(messages: Sequence[ModelMessage]) -> int:
    """The messages of `messages` a listing counts: the user's and the model's, not the program's
    close of a turn that got no answer (agent/run/unfinished.py). Two prompts that both failed were
    '3 messages', the close between them counted as one; that they got no answer is the listing's
    `(unanswered)` mark, and `/history`'s `no answer` row. Nor the read_file call and results an
    `@path` attachment adds: a message typed with a file attached was '3 messages'."""
    return sum(1 for m in messages if a_message({"kind": m.kind, "metadata": getattr(m, "metadata", None),
                                                  "parts": [{"part_kind": p.part_kind} for p in m.parts]}))


def carried(path: Path, trigger: str, written: int, start_of: Path | None = None) -> dict[str, Any]:
    """The note a rewrite of the session at `path` into `written` messages puts in its boundary:
    the first prompt and the messages counted so far, which a listing of the new file goes on from,
    and whether the model had answered (`-c` does not take a rewound failed start for a conversation).
    A compaction's messages are none of them new; a rewind's or an edited history's are the
    conversation as it stands, what it dropped no longer counted. `start_of`: the file whose
    conversation the new messages begin, when it is not `path` (a rewind to a turn before a
    compaction takes them from the transcript it archived): counted from that file, a rewind there
    added the archived conversation to the compacted one ('76 messages' for 30)."""
    was = scan(start_of or path)
    base = was.messages
    if trigger in NOT_FOLDING:
        base -= max(0, was.current - was.written) - max(0, written - was.written)
    replied = was.replied or (start_of is not None and scan(path).replied)  # a rewound failed start: False
    return {"first_prompt": was.prompt, "messages": max(0, base), "written": written, REPLIED: replied}


def _first_words(message: dict[str, Any]) -> str:
    """The first thing the user typed in a stored message: its first prompt of theirs, or, in a
    compaction's message (our text), the oldest of the user's messages it carries (of a session
    compacted before boundaries carried its first prompt)."""
    meta = message.get("metadata")
    ours = meta.get(MARK) if isinstance(meta, dict) else None
    users = ours.get("user_messages") if isinstance(ours, dict) else None
    for part in message.get("parts", []) if isinstance(message.get("parts"), list) else []:
        if not (isinstance(part, dict) and part.get("part_kind") == "user-prompt" and isinstance(part.get("content"), str)):
            continue
        if is_synthetic_text(part["content"]):
            if isinstance(users, list) and users and isinstance(users[0], str):
                return users[0]
            continue
        if part["content"].strip():
            return str(part["content"])
    return ""
