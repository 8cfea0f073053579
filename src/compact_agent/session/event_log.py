"""A session's event log, `events.jsonl` in its side folder: one line per thing the layers,
compaction and the provider did (layer, action, tokens before and after, ids touched), read back by
`/status`, the analyzer and the tests. Apart from store.py because it is no part of the
conversation: appended without a parent id or a lock, never archived nor rewritten, and a line
lost to a crash costs a figure, not a message."""

from __future__ import annotations

import contextlib
import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

from .. import secrets
from ..appended_lines import append_line
from .entries import utf8_safe
from .files import ensure_private_dir
from .loading import _file_lines


class EventLog:
    """The events of the session whose side files are in `folder`, each stamped by `clock`."""

    def __init__(self, folder: Path, clock: Callable[[], str]) -> None:
        self.folder = folder
        self.path = folder / "events.jsonl"
        self._clock = clock

    def append(self, event: dict[str, Any]) -> None:
        ensure_private_dir(self.folder)
        line = utf8_safe(secrets.redact(json.dumps({"time": self._clock(), **event}, ensure_ascii=False,
                                                   default=str) + "\n")).encode()
        append_line(self.path, line)  # after a line torn by a crash, on a line of its own

    def read(self) -> list[dict[str, Any]]:
        """Every event that reads as one; torn or foreign lines are skipped."""
        out: list[dict[str, Any]] = []
        if not self.path.exists():
            return out
        for raw in _file_lines(self.path):
            if raw is None:
                continue
            with contextlib.suppress(ValueError, UnicodeDecodeError, RecursionError):
                obj = json.loads(raw)
                if isinstance(obj, dict):
                    out.append(obj)
        return out
