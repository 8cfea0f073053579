"""What the session notes keep beside them (`<notes>.json`): the message they cover through, when
they were last updated, and why the last update failed, with how many failed in a row.

The failure is kept with the session so that /notes in a later run (`-c -p` runs are short) still
says why the notes are missing or older than they look; it was known only in the run that failed.
An update that succeeds clears it. Written as the notes are (`write_private`: temp file, fsync,
rename); a sidecar that cannot be read is as none.
"""

from __future__ import annotations

import contextlib
import json
from dataclasses import dataclass
from pathlib import Path

from ..plumbing.markers import write_private
from ..plumbing.regular_file import OWN_FILE_CAP, read_capped


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
