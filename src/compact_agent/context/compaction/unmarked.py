"""A compaction message saved without its metadata, known again by its whole text.

The library knows the message a compaction starts a history with (and the updates later ones append
to it) by its metadata (`markers.is_compaction_message`), which also carries the user's messages
verbatim and the ledger of changed files to the next compaction. An app that keeps messages in a
schema of its own and builds `ModelRequest`s again from it drops the metadata: the next compaction
then quoted the library's own records (a fetched page's words a summary repeated among them) as "the
user's messages, verbatim … authoritative", and lost the prompts and files they carried. At the
start of a run and of `compact_now` (lifecycle.py), such a message gets its mark back from its text.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from pydantic_ai.messages import ModelMessage, ModelRequest, UserPromptPart

from ..plumbing.markers import KEY, is_compaction_message, ours
from . import summary, user_messages


def restore_compaction_marks(messages: Sequence[ModelMessage]) -> int:
    """Give each compaction message of `messages` saved without its metadata its mark back, read
    from its text; returns how many.

    Only a part whose whole text is one the library writes counts: it begins with a compaction
    message's (or an update's) exact header, and written again from what it says (its record, the
    user's messages it lists, the files, the archive) it is the same text, byte for byte. A user's
    message that begins with the header, quotes it or differs by a line stays the user's. A message
    holding any metadata of ours is left as it is (kept metadata says what it is)."""
    heads = (summary.SUMMARY_HEAD + "\n", summary.UPDATE_HEAD + "\n")
    carried: dict[str, Any] | None = None  # the newest compaction message's mark: what an update goes on from
    restored = 0
    for m in messages:
        if is_compaction_message(m):
            carried = ours(m)
            continue
        if ours(m) or not isinstance(m, ModelRequest):
            continue
        found = None
        for p in m.parts:
            if isinstance(p, UserPromptPart) and isinstance(p.content, str) and p.content.startswith(heads):
                found = _compaction_mark(p.content, carried) or found
                carried = found or carried
        if found is not None:
            meta = m.metadata
            base = dict(meta) if isinstance(meta, dict) else {} if meta is None else {"value": meta}
            m.metadata = {**base, KEY: found}
            restored += 1
    return restored


_FENCED = re.compile(r"- <(message_[0-9a-f]+)>")
_LEFT_OUT = re.compile(r"([\d,]+) (?:older )?messages? (after the first \(below\) )?left out")
_FILE = re.compile(r"- (.*?) \(([a-z][a-z ]*(?:, [a-z][a-z ]*)*)(?:; (.*))?\)")
_ARCHIVE = re.compile(r"If you need details .*? is at (.*) \(read it with read_file; one that begins .*"
                      r"|The transcript this record covers is at (.*) \(read it with read_file\)\."
                      r"|Its transcript: (.*), in the directory of the one above\.")


def _compaction_mark(text: str, carried: dict[str, Any] | None) -> dict[str, Any] | None:
    """The mark of the compaction message (or update) `text` is, as the library wrote it, or None
    when `text` is not one, whole (`restore_compaction_marks`). `carried`: the mark of the compaction
    message before it, which an update goes on from."""
    update = text.startswith(summary.UPDATE_HEAD + "\n")
    head, note = (summary.UPDATE_HEAD, summary.UPDATE_NOTE) if update else (summary.SUMMARY_HEAD, summary.RECORD_NOTE)
    opening, closing = f"{head}\n{note}\n<{summary.RECORD_TAG}>\n", f"\n</{summary.RECORD_TAG}>\n"
    end = text.find(closing, len(opening) - 1)
    if not text.startswith(opening) or end < 0:
        return None
    body, lines = text[len(opening):end], [*text[end + len(closing):].split("\n"), "", ""]  # read past the end: ""
    users: list[str] = []
    files: dict[str, list[str]] = {}
    failed: dict[str, list[str]] = {}
    now: dict[str, str] = {}
    left, after_first, reads, i = 0, False, list[str](), 1  # a blank line after the record
    try:
        if lines[i].startswith("The user's messages"):
            i += 1
            while lines[i]:
                if fence := _FENCED.fullmatch(lines[i]):
                    j = lines.index(f"</{fence[1]}>", i + 1)
                    users.append("\n".join(lines[i + 1:j]))
                    i = j + 1
                elif lines[i].startswith("- "):
                    users.append(lines[i][2:])
                    i += 1
                elif said := _LEFT_OUT.match(lines[i]):
                    left, after_first, i = int(said[1].replace(",", "")), bool(said[2]), i + 1
                else:
                    return None
            i += 1
        for header, into in (("Files changed ", files), ("Writes and edits that did not happen", failed)):
            if lines[i].startswith(header):
                i += 1
                while lines[i]:
                    if not (entry := _FILE.fullmatch(lines[i])):
                        return None
                    into[entry[1]] = entry[2].split(", ")
                    if entry[3]:
                        now[entry[1]] = entry[3]
                    i += 1
                i += 1
        if lines[i].startswith("Files read recently (not restored"):
            reads, i = [lines[i].partition("): ")[2]], i + 2
    except (IndexError, ValueError):  # a list or a fence that does not end: not ours
        return None
    said = _ARCHIVE.fullmatch(lines[i]) if i < len(lines) else None
    archive = next((a for a in said.groups() if a), None) if said else None
    above = carried.get("archive") if carried else None
    if archive is not None and lines[i].startswith("Its transcript: "):
        archive = str(Path(above).parent / archive) if isinstance(above, str) else None
    picked = user_messages.typed(users, left, after_first)
    ledger = {**files, **failed}
    if update:
        before = carried or {}
        earlier = [u for u in before.get("user_messages") or () if isinstance(u, str)]
        every = user_messages.typed([*earlier, *reversed(users)], int(before.get("users_left_out") or 0) + left,
                                    before.get("users_first_kept") is True)
        written = summary.update_message(
            body, Path(archive) if archive else None, picked, ledger, reads, all_users=every,
            all_files={**(before.get("files_changed") or {}), **ledger}, strategy="full",
            archive_above=above if isinstance(above, str) else None, state=now.get)
    else:
        written = summary.summary_message(body, Path(archive) if archive else None, picked, "full", ledger, reads,
                                          state=now.get)
    part, mark_of = written.parts[0], ours(written)
    return mark_of if isinstance(part, UserPromptPart) and part.content == text and mark_of else None
