"""The prompt a session began with, read without pydantic-ai and only as far as it: what `-c`'s note
names a session by (cli_resume.py), before the REPL's prompt is up.

listing.py says it of a session too, with the rest of a listing (counts, `(unanswered)`), and needs
pydantic-ai to tell a message a load reads (0.6 s of imports). The sessions `-c` names are a failed
start (a typed prompt, maybe a request) and the conversation it opens, whose first prompt comes
first or is noted in its boundary. Read here: a boundary's note, or the first typed message and the
first message of the conversation, the reading stopped once no later line can change which one it
is. A file this reading cannot tell (compacted before boundaries carried a note, a summary's own
words first) gives None: the caller asks listing.py.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from ..context.plumbing.markers import DIGEST_HEADER, KEY, OWN_TEXT
from ..shell_message import as_typed_with_output
from .answered import note_of
from .lines import readable_entries

#: Of a first prompt, the characters kept (listing.py keeps as many).
PROMPT_CHARS = 500
#: The mark of the program's close of a turn that got no answer (agent/run/unfinished.py writes it).
UNANSWERED = "unanswered"
#: The marks of the read_file call and its results that a file or an image the user attached with
#: `@path` adds before their message (agent/run/turn.py, `mentions`): part of the message as typed.
ATTACHED = ("mention", "image")


def began_with(path: Path, max_entries: int = 200) -> str | None:
    """The first prompt of the session at `path` as listing.scan gives it (`max_entries`: of the
    messages, those looked at for it); None where only listing.scan can tell."""
    n = 0
    early: list[tuple[str, str]] = []  # (entry id, text) of typed messages before the first message
    settled: set[str] = set()  # typed messages a request carried, or marked unsent
    found = ""  # the first message's first words
    try:
        for entry in readable_entries(path):
            kind = entry.get("kind")
            if kind == "boundary":
                note = note_of(entry.get("boundary"))
                if n or early or note is None or not note[0]:
                    return None  # a rewrite is the file's first line; one without a note: listing.py reads on
                return as_typed_with_output(note[0])[:PROMPT_CHARS]
            if kind == "prompt":
                saved, eid = entry.get("prompt"), entry.get("id")
                if isinstance(saved, dict) and isinstance(eid, str):
                    if isinstance(saved.get("unsent"), str):
                        settled.add(saved["unsent"])
                    elif isinstance(saved.get("text"), str) and not found and n <= max_entries:
                        early.append((eid, saved["text"]))
            elif kind == "message" and isinstance(message := entry.get("message"), dict):
                if isinstance(entry.get("prompt"), str):
                    settled.add(entry["prompt"])
                if not a_message(message):
                    continue
                n += 1
                if not found and n <= max_entries:
                    if (words := _first_words(message)) is None:
                        return None
                    found = words
            if (found or n > max_entries) and all(eid in settled for eid, _ in early):
                break  # nothing further on is the first prompt
    except OSError:
        return ""
    unsent = [text for eid, text in early if eid not in settled]
    return as_typed_with_output(unsent[0] if unsent else found)[:PROMPT_CHARS]


def a_message(message: Any) -> bool:
    """Whether a stored message is one of the conversation a listing counts: not the program's close
    of a turn that got no answer, nor an attachment's read (`ATTACHED`) without the user's words."""
    if not isinstance(message, dict):
        return True
    meta = message.get("metadata")
    ours = meta.get(KEY) if isinstance(meta, dict) else None
    mark = ours.get("synthetic") if isinstance(ours, dict) else None
    if message.get("kind") == "response":
        return mark != UNANSWERED and mark not in ATTACHED
    parts = message.get("parts")
    typed = isinstance(parts, list) and any(isinstance(p, dict) and p.get("part_kind") == "user-prompt" for p in parts)
    return typed or mark not in ATTACHED


def _first_words(message: dict[str, Any]) -> str | None:
    """The first thing the user typed in a stored message of a file no compaction rewrote; None for
    a message in the program's words (listing.py tells those)."""
    meta = message.get("metadata")
    if isinstance(meta, dict) and isinstance(meta.get(KEY), dict) and "user_messages" in meta[KEY]:
        return None  # a compaction's message, which carries the user's
    for part in message.get("parts", []) if isinstance(message.get("parts"), list) else []:
        if not (isinstance(part, dict) and part.get("part_kind") == "user-prompt" and isinstance(part.get("content"), str)):
            continue
        if part["content"].startswith((OWN_TEXT, DIGEST_HEADER)):
            return None
        if part["content"].strip():
            return str(part["content"])
    return ""
