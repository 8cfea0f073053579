"""The servers that refused user messages in a row, kept per endpoint and model for the runs that follow.

A server whose chat template wants user and assistant turns to alternate refuses a request with two
user messages in a row once, and the model (user_turns.py) joins them from then on; a new run (`-c
-p`, another terminal) paid that refusal again. The model and endpoint it was learned for are kept
under the agent's home folder, beside the windows learned (`servers/turns.json`: {"joined": {base URL
without its secrets: [model, ...]}}, written atomically under an flock on `turns.json.lock`, as
server_windows.py writes its file), and a run to the same server and model joins them from its first
request. Joining is harmless to a server that takes them apart (the same words in the same order), so
nothing forgets it; deleting the file does.
"""

from __future__ import annotations

import contextlib
import json
from pathlib import Path
from typing import Any

from ...config import home_dir
from ...regular_file import read_own
from ...session.files import atomic_write
from .server_keys import endpoint
from .server_windows import FOLDER, locked

FILE = "turns.json"


def path_in(home: Path) -> Path:
    return home / FOLDER / FILE


def joins(home: Path, key: str, model: str) -> bool:
    """Whether `key`'s server refused `model`'s user messages in a row in an earlier run."""
    return model in _read(path_in(home)).get(key, [])


def keep(home: Path, key: str, model: str) -> None:
    """Keep that `key`'s server wants `model`'s turns to alternate. Raises OSError."""
    path = path_in(home)
    with locked(path):  # as the windows' file: a killed writer's temp goes with the change
        joined = _read(path)
        if model not in joined.get(key, []):
            joined[key] = sorted({*joined.get(key, []), model})
            atomic_write(path, (json.dumps({"joined": joined}, indent=1, sort_keys=True) + "\n").encode())


def wire(model: Any, opts: Any, info: Any) -> None:
    """Start `model` (user_turns.AlternatingChatModel, built for `opts` and `info`) joining where its
    server and model were learned to want it, and keep it when it learns it; a ready model (the offline
    demo's) or another model class is left as it is, and a home folder that cannot be read or written
    keeps nothing (the run learns it from one refusal, as before)."""
    if opts.model_override is not None or not hasattr(model, "joins_user_turns"):
        return
    home, key, name = opts.home or home_dir(), endpoint(opts.base_url, info.provider), info.name
    with contextlib.suppress(OSError):
        model.joins_user_turns = joins(home, key, name)

    def learned() -> None:
        with contextlib.suppress(OSError):
            keep(home, key, name)

    model.on_learned = learned



def _read(path: Path) -> dict[str, list[str]]:
    """What is kept; a file missing, unreadable or in another shape keeps nothing."""
    try:
        data = json.loads(read_own(path))
    except (OSError, ValueError, RecursionError):
        return {}
    joined = data.get("joined") if isinstance(data, dict) else None
    if not isinstance(joined, dict):
        return {}
    return {url: [m for m in models if isinstance(m, str)] for url, models in joined.items()
            if isinstance(url, str) and isinstance(models, list)}
