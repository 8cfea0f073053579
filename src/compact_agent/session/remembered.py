"""The command-line settings a session runs with, kept in its file so `-c` / `-r ID` run it the same.

`--model`, `--base-url`, `--context-window`, `--prices`, `--max-turns` and `--append-system-prompt`
belong to a session: resumed without them it ran at the defaults (a session started with
`--context-window 16k` went on at the model's full window, one started with `--prices` unpriced).
They are saved as a `meta` entry of the session file, `{"options": {...}}` (prices as the list
`[input, cached_input, output, cache_write]`), with the model the session ran with (`ran_with`: a
window, prices or an endpoint given for one model are not taken to another). A later meta entry
replaces an earlier one's options, and a rewrite of the file (a compaction, `/rewind`) carries them
over (store.py).

The command line decides what a run remembers (cli_resume.py, `remembering`); the store writes it
with its first write to the session the run starts, or to the very session the command line resumed
when something changed (an option given again wins, and its new value is remembered). A session
picked from `-r`'s list or switched to with the REPL's `/resume` is opened the same way: with its own
options, unless given on this command line (`from_now_on`). A `/model` switch changes what the
session remembers (`after_switch`), and what a session `/clear` starts next remembers. A run refused
when its session opens (a window too small) writes nothing, so it changes nothing. Nothing here
imports pydantic-ai: the command line reads a session's options before any of it is loaded.
"""

from __future__ import annotations

import contextlib
import json
from collections.abc import Iterator
from contextvars import ContextVar
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

#: The meta entry's key for the options.
KEY = "options"

#: The options a session keeps, with the type each value must have (anything else is ignored).
NAMES: dict[str, type] = {"model": str, "base_url": str, "context_window": int, "max_turns": int,
                          "append_system_prompt": str, "prices": list}

#: The model the session ran with when its options were saved.
RAN_WITH = "ran_with"

#: What belongs to the model it was given for, and is not applied when another model runs.
FOR_THE_MODEL = ("base_url", "context_window", "prices")


@dataclass(frozen=True)
class ToRemember:
    """What this run's stores save: `options`, the session's command-line settings as this run has
    them (remembered ones and those given again); `resumed`, the session file the command line
    resumed (None: a new session); `changed`, whether `options` differ from what it remembered;
    `applied`, the options this run took from the session rather than from its command line (an
    error names them as remembered, not as flags the user gave)."""

    options: dict[str, Any] = field(default_factory=dict)
    resumed: Path | None = None
    changed: bool = True
    applied: frozenset[str] = frozenset()


_RUN: ContextVar[ToRemember | None] = ContextVar("compact_agent_remembered", default=None)


@contextlib.contextmanager
def remembering(what: ToRemember) -> Iterator[None]:
    """While the run lasts, the stores it opens save `what` (see the module's docstring)."""
    token = _RUN.set(what)
    try:
        yield
    finally:
        _RUN.reset(token)


def this_run() -> ToRemember | None:
    return _RUN.get()


def named(option: str, flag: str) -> str:
    """How an error names where `option` came from: `flag` when this command line gave it, else
    `remembered FLAG VALUE` when the run took it from the session (`-c` with no flag at all)."""
    run = _RUN.get()
    if run is None or option not in run.applied or option not in run.options:
        return flag
    value = run.options[option]
    return f"remembered {flag} {value:,}" if isinstance(value, int) else f"remembered {flag} {value}"


def from_now_on(what: ToRemember | None) -> None:
    """This run's stores save `what` from now on, for the rest of the task that says so (the REPL's):
    when `-r`'s list or `/resume` opens a session with the options it remembers (cli_resume.py)."""
    _RUN.set(what)


def switched(options: dict[str, Any]) -> None:
    """After a `/model` switch the session remembers `options` (its store writes them): so does a
    session this run starts next (`/clear`), which goes on with the model switched to."""
    run = _RUN.get()
    _RUN.set(ToRemember(dict(options), run.resumed if run is not None else None))


def after_switch(saved: dict[str, Any], model: str, window: int | None, known: bool) -> dict[str, Any]:
    """What a session that remembered `saved` remembers after `/model` switched it to `model`
    (`window`: the `--window` given with it). A window given for the old model does not follow a
    model the registry knows (the switch sizes it by its own), and follows one it does not know
    (the switch keeps it); so do prices given (a known model has its own); the endpoint is the one
    the session goes on reaching."""
    out = {**saved, "model": model, RAN_WITH: model}
    if window is not None:
        out["context_window"] = window
    elif known:
        out.pop("context_window", None)
    if known:
        out.pop("prices", None)
    return out


def read_meta(path: Path) -> dict[str, Any]:
    """The merged `meta` entries of a session file ({} without any, or without the file): read
    line by line, only lines that can be a meta entry parsed; never raises on content."""
    meta: dict[str, Any] = {}
    try:
        with path.open("rb") as f:
            for line in f:
                if b'"meta"' not in line:
                    continue
                with contextlib.suppress(ValueError, UnicodeDecodeError, RecursionError):
                    entry = json.loads(line)
                    if isinstance(entry, dict) and entry.get("kind") == "meta" and isinstance(entry.get("meta"), dict):
                        meta.update(entry["meta"])
    except OSError:
        return {}
    return meta


def options_of(path: Path) -> dict[str, Any]:
    """The options session file `path` remembers, each of the type it must have."""
    saved = read_meta(path).get(KEY)
    if not isinstance(saved, dict):
        return {}
    out: dict[str, Any] = {}
    for name, kind in (*NAMES.items(), (RAN_WITH, str)):
        value = saved.get(name)
        if isinstance(value, kind) and not isinstance(value, bool):
            out[name] = value
    return out


#: What each option takes, for the line that says a remembered value is of another kind.
TAKES = {"model": "a model name", "base_url": "an address", "context_window": "a whole number of tokens",
         "max_turns": "a whole number of model requests", "append_system_prompt": "text",
         "prices": "a list of prices"}


def misfits(path: Path) -> dict[str, Any]:
    """The options session file `path` remembers with a value of another kind than each takes (a
    hand-edited `context_window: "abc"`, `model: 7`), which `options_of` leaves out: said, they were
    dropped without a word, and stayed in the file."""
    saved = read_meta(path).get(KEY)
    if not isinstance(saved, dict):
        return {}
    return {name: saved[name] for name, kind in NAMES.items() if saved.get(name) is not None
            and (not isinstance(saved[name], kind) or isinstance(saved[name], bool))}


def to_apply(saved: dict[str, Any], given: dict[str, Any], model: str, *, same_endpoint: bool = False
             ) -> dict[str, Any]:
    """Of the options a session remembers (`saved`), those this command line did not give again;
    without the window and endpoint when `model` (the model this run will use) is not the one
    they were given for — except the endpoint when `same_endpoint` (one local server serves many
    models: cli_resume.py decides)."""
    out = {k: v for k, v in saved.items() if k in NAMES and k not in given}
    if saved.get(RAN_WITH, model) != model:
        for name in FOR_THE_MODEL:
            if not (name == "base_url" and same_endpoint):
                out.pop(name, None)
    return out
