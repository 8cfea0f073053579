"""What the layers decided in a session, kept beside its file between runs (layers.json).

A resumed session starts with its layers' decisions as the last run left them (what was cleared,
collapsed, paused); a damaged file is said once and the layers decide afresh, never a failed start.
Every decision after that is saved there again (`ContextManager.save_state`).
"""

from __future__ import annotations

import json
from pathlib import Path

from ...regular_file import read_own
from ...session.files import atomic_write
from . import server_windows
from .session_parts import SessionParts

LAYERS_FILE = "layers.json"


def restore_layer_state(session: SessionParts) -> None:
    """Load `session`'s saved layer state into its manager, and save the manager's there from now on."""
    path = session.store.dir / LAYERS_FILE
    try:
        if (text := _saved(path)) is not None:
            session.cm.load_layer_state(server_windows.checked(session, json.loads(text)))
    except (OSError, ValueError, RecursionError, TypeError, KeyError, AttributeError):
        # RecursionError: a file of nested brackets is valid-looking JSON too deep to parse.
        session.warnings.append(f"{path.name} is unreadable; layer decisions start afresh")
    session.cm.save_state = lambda state: atomic_write(path, json.dumps(state, default=str).encode())


def _saved(path: Path) -> bytes | None:
    """The text of the layers' file, or None where the session saved none yet (its first run)."""
    try:
        return read_own(path)
    except FileNotFoundError:
        return None
