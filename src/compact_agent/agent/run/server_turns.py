"""The servers that refused user messages in a row, kept per endpoint and model for the runs that follow.

A server whose chat template wants user and assistant turns to alternate refuses a request with two
user messages in a row once, and the model (user_turns.py) joins them from then on; a new run (`-c
-p`, another terminal) paid that refusal again. The model and endpoint it was learned for are kept
under the agent's home folder, beside the windows learned (`servers/turns.json`: {"joined": {base URL
without its secrets: {model: {"learned": ISO time}}}}; a list of models, as the first version wrote it,
is read as learned at a time not recorded), written atomically under an flock on `turns.json.lock`, as
server_windows.py writes its file, and a run to the same server and model joins them from its first
request. Joining is harmless to a server that takes them apart (the same words in the same order), so
no run forgets it; `compact-agent config` lists what is kept, and `config --forget-server URL|all`
forgets it with the windows kept there (cli_windows.py), after the server's template changed.
"""
from __future__ import annotations

import contextlib
import json
import logging
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from ...config import home_dir
from ...session.files import atomic_write
from .server_keys import MISSING, endpoint, matches, read_json
from .server_windows import FOLDER, locked

log = logging.getLogger(__name__)

FILE = "turns.json"


def path_in(home: Path) -> Path:
    return home / FOLDER / FILE


def joins(home: Path, key: str, model: str) -> bool:
    """Whether `key`'s server refused `model`'s user messages in a row in an earlier run."""
    return model in _read(path_in(home)).get(key, {})


def keep(home: Path, key: str, model: str, now: datetime | None = None) -> None:
    """Keep that `key`'s server wants `model`'s turns to alternate, learned at `now` (default: the
    time now). Raises OSError."""
    path = path_in(home)
    with locked(path):  # as the windows' file: a killed writer's temp goes with the change
        joined = _read(path)
        if model not in joined.get(key, {}):
            joined.setdefault(key, {})[model] = (now or datetime.now(UTC)).isoformat(timespec="seconds")
            _write(path, joined)


def every(home: Path) -> list[tuple[str, str, str | None]]:
    """Every server and model kept, as (endpoint, model, when it was learned), by endpoint and model."""
    joined = _read(path_in(home))
    return [(url, model, joined[url][model]) for url in sorted(joined) for model in sorted(joined[url])]


def forget(home: Path, which: str, model: str | None = None) -> list[tuple[str, str, str | None]]:
    """Forget what is kept for the endpoint `which` names (server_keys.matches), only `model`'s when
    given; returns what was forgotten. Raises OSError."""
    path = path_in(home)
    gone: list[tuple[str, str, str | None]] = []
    if not path.exists():  # nothing kept: nothing made either
        return gone
    with locked(path):
        joined = _read(path)
        for url in sorted(joined):
            if matches(url, which):
                gone += [(url, m, joined[url].pop(m)) for m in sorted(joined[url]) if model is None or m == model]
                if not joined[url]:
                    del joined[url]
        if gone:
            _write(path, joined)
    return gone


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


def _write(path: Path, joined: dict[str, dict[str, str | None]]) -> None:
    data = {"joined": {url: {m: {"learned": when} for m, when in models.items()} for url, models in joined.items()}}
    atomic_write(path, (json.dumps(data, indent=1, sort_keys=True) + "\n").encode())


def _read(path: Path) -> dict[str, dict[str, str | None]]:
    """What is kept, each model with when it was learned; a file missing keeps nothing, and one that
    cannot be read or is in another shape too, which a warning says (once: `config` listed none, as
    if none was kept); an entry in another shape is passed over."""
    if (got := read_json(path))[1] is not None:
        log.warning("ignoring the servers user messages are sent joined to, kept in %s: %s", path, got[1])
    if (data := got[0]) is MISSING:
        return {}
    joined = data.get("joined") if isinstance(data, dict) else None
    if not isinstance(joined, dict):
        log.warning("ignoring the servers user messages are sent joined to, kept in %s: not in the expected shape", path)
        return {}
    out: dict[str, dict[str, str | None]] = {}
    for url, models in joined.items():
        kept: dict[str, str | None]
        if isinstance(url, str) and isinstance(models, list):  # the first version's: no time kept
            kept = dict.fromkeys((m for m in models if isinstance(m, str)), None)
        elif isinstance(url, str) and isinstance(models, dict):
            kept = {m: _learned(v) for m, v in models.items() if isinstance(m, str) and isinstance(v, dict)}
        else:
            continue
        if kept:
            out[url] = kept
    return out


def _learned(value: dict[str, object]) -> str | None:
    learned = value.get("learned")
    return learned if isinstance(learned, str) else None
