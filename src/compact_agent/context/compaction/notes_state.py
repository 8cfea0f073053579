"""The session notes on disk: the notes read back, and what is kept beside them (`<notes>.json`): the
message they cover through, when they were last updated, and why the last update failed, with how
many failed in a row. The message is named by its place and its content (`fingerprint`, `find`).

The failure is kept with the session so that /notes in a later run (`-c -p` runs are short) still
says why the notes are missing or older than they look; it was known only in the run that failed.
An update that succeeds clears it. Written as the notes are (`write_private`: temp file, fsync,
rename); a sidecar that cannot be read is as none.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import logging
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from pydantic_ai.messages import ModelMessage, ModelMessagesTypeAdapter

from ..plumbing.identity_memo import IdentityMemo
from ..plumbing.markers import write_private
from ..plumbing.regular_file import OWN_FILE_CAP, read_capped
from .notes import parse_sections

log = logging.getLogger("compact_agent.context.compaction.memory")  # as it was named when memory.py read them


def read_notes(path: Path) -> str | None:
    """The saved notes, or None with a warning when they are unreadable or not notes at all: a
    damaged file must not stand in for a summary; new notes are written on the next update."""
    try:  # a regular file only: a FIFO in its place would wait for a writer forever
        text = read_capped(path, OWN_FILE_CAP).decode("utf-8")
    except FileNotFoundError:
        return None
    except (OSError, UnicodeDecodeError) as e:
        log.warning("session notes %s are unreadable (%s); new notes will be written", path, e)
        return None
    if text.strip() and not parse_sections(text):
        log.warning("session notes %s are not in the notes format; new notes will be written", path)
        return None
    return text


@dataclass
class NotesState:
    coverage: tuple[int, str] | None = None  # (index, fingerprint) of the last message the notes cover
    updated: str = ""  # when they were last updated (ISO time)
    error: str = ""  # why the last update failed, in words; "" once one succeeded
    failures: int = 0  # updates failed in a row


def read_state(path: Path | None) -> NotesState:
    state = NotesState()
    if path is None:
        return state
    with contextlib.suppress(OSError, ValueError, KeyError, TypeError, AttributeError, RecursionError):
        side = json.loads(read_capped(path, OWN_FILE_CAP))
        index = int(side["index"])
        state.coverage = (index, str(side["fingerprint"])) if index >= 0 else None  # -1: none (`write_state`)
        state.updated = str(side.get("updated", ""))
        failed = side.get("failed")
        if isinstance(failed, dict) and isinstance(failed.get("error"), str) and failed["error"]:
            state.error, state.failures = failed["error"], max(1, int(failed.get("failures", 1)))
    return state


def write_state(path: Path | None, state: NotesState) -> None:
    """Saved atomically; a disk that refuses it loses only what a later run would have read."""
    if path is None:
        return
    index, fp = state.coverage if state.coverage else (-1, "")
    data: dict[str, object] = {"version": 1, "index": index, "fingerprint": fp, "updated": state.updated}
    if state.error:
        data["failed"] = {"error": state.error, "failures": state.failures}
    with contextlib.suppress(OSError):
        write_private(path, json.dumps(data), "notes")


_fp_memo: IdentityMemo[str] = IdentityMemo()


def fingerprint(message: ModelMessage) -> str:
    """Content identity that survives reloads and pydantic-ai's late run metadata (run_id, model_id)."""
    hit = _fp_memo.get(message)
    if hit is not None:
        return hit
    d = ModelMessagesTypeAdapter.dump_python([message], mode="json")[0]
    key = json.dumps({k: d.get(k) for k in ("kind", "timestamp", "parts")}, sort_keys=True, default=str)
    return _fp_memo.put(message, hashlib.sha1(key.encode()).hexdigest())


def find(messages: Sequence[ModelMessage], index: int, fp: str) -> int | None:
    """Where the message (index, fp) is now: at its index, else the nearest index with that content."""
    if 0 <= index < len(messages) and fingerprint(messages[index]) == fp:
        return index
    for i in sorted(range(len(messages)), key=lambda i: (abs(i - index), -i)):
        if fingerprint(messages[i]) == fp:
            return i
    return None
