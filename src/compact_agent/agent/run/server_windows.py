"""The windows servers turned out to have, kept per endpoint and model for the sessions that follow.

A local server started with a smaller context than the one assumed (llama.cpp's `-c 8192`, an
Ollama model past its context length) says so only by refusing a request, or by cutting prompts
without a word. The session that finds out keeps the window with its own state (`-c` resumes it);
a new session against the same server and model used to send the refused request again, or have
its prompts cut again, before learning it anew. The window learned is kept here too, under the
agent's home folder (`servers/windows.json`: {"windows": {base URL without its secrets: {model:
{"window": N, "how": "refused" | "cut", "learned": ISO time}}}}, written atomically), and a new
session with no window given starts at it, saying so once, in words true to how the server showed it.

A window the user gives (the flag, the setting, its variable, or one a resumed session remembers)
always wins. A later refusal at a smaller window replaces the one kept. A larger window is not
observed by a session working within the one kept, so a server restarted with a larger context is
told by the user: `compact-agent config` lists what is kept, and `config --forget-window URL|all`
forgets it (cli_windows.py). A session given a larger window (`--context-window`) that has a prompt
over the one kept taken whole proves it wrong, and forgets it too (window_proof.py).

A session keeps the window it learned with its own state too, named by the model and endpoint it
was learned from (`label`, the address without a password or a key in it), and `-c` takes it back
only there (`checked`): resumed against another server or model with the same `--context-window`,
a session used to stay held to the first server's limit. What is kept here is the word on it: a
window forgotten here (`config --forget-window`, or proved wrong) is forgotten by the sessions that
kept it too, and one kept by an older version, which did not say where it was learned, is taken back
only where the window kept here for the server it runs against is that one.

Two sessions may learn windows at once (two servers, two terminals): every change re-reads the
file and writes it under an flock on `windows.json.lock` beside it, so neither drops what the
other kept. Where there is no flock (not POSIX) the change is made without the lock.
"""

from __future__ import annotations

import contextlib
import json
import logging
import os
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from ...cli_numbers import MAX_WINDOW
from ...config import home_dir
from ...regular_file import read_own
from ...session.files import atomic_write, ensure_private_dir, remove_stale_temps
from .server_keys import MISSING, read_json
from .server_keys import endpoint as endpoint
from .server_keys import forget_hint as forget_hint
from .server_keys import label as label
from .server_keys import matches as matches
from .server_keys import shown as shown

log = logging.getLogger(__name__)

try:
    import fcntl
except ImportError:  # not POSIX: changes are made without the lock
    fcntl = None  # type: ignore[assignment]

#: The folder, under the agent's home, of what it learned about servers (private: see options.py).
FOLDER = "servers"
FILE = "windows.json"
#: How the server showed its window, by the trigger of the event that learned it (state.py); or it
#: reported it when asked (server_report.py), the session's window where none is given.
HOW = {"reactive": "refused", "cut": "cut"}
REPORTED = "reported"


@dataclass(frozen=True)
class Kept:
    """A window kept for an endpoint and model: `how` the server showed it ("refused": it refused a
    request and named its window; "cut": it cut prompts to that size without saying so; None: kept
    by a version that did not record it) and when (`learned`, ISO 8601; None alike)."""

    window: int
    how: str | None = None
    learned: str | None = None

    @classmethod
    def from_json(cls, value: Any) -> Kept | None:
        """As written, or a bare window (an older version's); None for anything else."""
        if type(value) is int:
            return cls(value) if _in_range(value) else None
        if not isinstance(value, dict):
            return None
        window, how, learned = value.get("window"), value.get("how"), value.get("learned")
        if type(window) is not int or not _in_range(window):
            return None
        return cls(window, how if how in (*HOW.values(), REPORTED) else None, learned if isinstance(learned, str) else None)

    def to_json(self) -> dict[str, Any]:
        return {"window": self.window, "how": self.how, "learned": self.learned}


def _in_range(window: int) -> bool:
    """A window the settings take (1 to MAX_WINDOW tokens). A file edited by hand held 10**400:
    `config` printed its 400 digits, and a session started within it."""
    return 1 <= window <= MAX_WINDOW


def _out_of_range(value: Any) -> bool:
    """A whole number kept as a window (bare, or as written) that `_in_range` refuses."""
    window = value.get("window") if isinstance(value, dict) else value
    return type(window) is int and not _in_range(window)


def server_of(session: Any) -> str | None:
    """The `label` of the server a session sends its requests to; None for a ready model (the
    offline demo's), whose windows are not kept here (`keep_learned`)."""
    if session.opts.model_override is not None:
        return None
    return label(endpoint(session.opts.base_url, session.info.provider), session.info.name)


def path_in(home: Path) -> Path:
    return home / FOLDER / FILE


@contextlib.contextmanager
def locked(path: Path) -> Iterator[None]:
    """Hold the flock on `path`'s lock file (`windows.json.lock`, `turns.json.lock`) for a
    read-modify-write of it. Held, no live writer has a temp beside `path`: one is a killed writer's,
    and goes."""
    ensure_private_dir(path.parent)
    fd = os.open(path.with_name(path.name + ".lock"), os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o600)
    try:
        if fcntl is not None:
            fcntl.flock(fd, fcntl.LOCK_EX)  # held for a read and a write: a blink
            remove_stale_temps(path.parent, f".{path.name}.")
        yield
    finally:
        os.close(fd)  # lets go of the lock too


def _update(path: Path, change: Callable[[dict[str, dict[str, Kept]]], bool]) -> None:
    """Apply `change` to the windows kept, read afresh under the lock, and write them when it says
    they changed: what another process wrote since this one last read is kept. Raises OSError."""
    with locked(path):
        windows = _read(path)
        if change(windows):
            data = {url: {m: kept.to_json() for m, kept in models.items()} for url, models in windows.items()}
            atomic_write(path, (json.dumps({"windows": data}, indent=1, sort_keys=True) + "\n").encode())


def _read(path: Path) -> dict[str, dict[str, Kept]]:
    """The windows kept, each a positive int; anything else in the file (edited by hand, torn) is
    skipped, and a file that cannot be read keeps nothing, which a warning says (once): it was
    `server windows learned: none`, as if the file held none."""
    if (got := read_json(path))[1] is not None:
        log.warning("ignoring the server windows learned in %s: %s", path, got[1])
    if (data := got[0]) is MISSING:
        return {}
    windows = data.get("windows") if isinstance(data, dict) else None
    if not isinstance(windows, dict):
        log.warning("ignoring the server windows learned in %s: not in the expected shape", path)
        return {}
    out: dict[str, dict[str, Kept]] = {}
    for url, models in windows.items():
        if isinstance(url, str) and isinstance(models, dict):
            kept = {m: k for m, v in models.items() if isinstance(m, str) and (k := Kept.from_json(v)) is not None}
            if kept:
                out[url] = kept
            for m in (m for m, v in models.items() if isinstance(m, str) and _out_of_range(v)):
                log.warning("ignoring the server window learned in %s for %s at %s: not within the 1 to %s tokens "
                            "a window may be", path, m, shown(url), f"{MAX_WINDOW:,}")
    return out


def remembered(home: Path, key: str, model: str) -> int | None:
    """The window `key`'s server was found to have for `model` in an earlier session, if any."""
    kept = remembered_as(home, key, model)
    return kept.window if kept is not None else None


def remembered_as(home: Path, key: str, model: str) -> Kept | None:
    """What was kept for `key` and `model`: the window, how the server showed it, and when."""
    return _read(path_in(home)).get(key, {}).get(model)


def remember(home: Path, key: str, model: str, window: int, how: str | None = None,
             now: datetime | None = None) -> None:
    """Keep `window` for `key` and `model` (replacing what was kept), learned `how` ("refused" or
    "cut") at `now` (default: the time now). Raises OSError."""
    when = (now or datetime.now(UTC)).isoformat(timespec="seconds")

    def change(windows: dict[str, dict[str, Kept]]) -> bool:
        was = windows.get(key, {}).get(model)
        if was is not None and was.window == window and was.how == how:
            return False
        windows.setdefault(key, {})[model] = Kept(window, how, when)
        return True

    _update(path_in(home), change)


def learned_how(session: Any, window: int) -> str | None:
    """How `session`'s server showed the `window` it works within ("refused", "cut"), as kept here;
    None where it is not kept so (a ready model's, one forgotten or replaced since, an older version's)."""
    if server_of(session) is None:
        return None
    kept = remembered_as(session.opts.home or home_dir(), endpoint(session.opts.base_url, session.info.provider),
                         session.info.name)
    return kept.how if kept is not None and kept.window == window else None


def every(home: Path) -> list[tuple[str, str, Kept]]:
    """Every window kept, as (endpoint, model, what was kept), by endpoint and model."""
    windows = _read(path_in(home))
    return [(url, model, windows[url][model]) for url in sorted(windows) for model in sorted(windows[url])]


def forget(home: Path, which: str, model: str | None = None) -> list[tuple[str, str, Kept]]:
    """Forget the windows kept for the endpoint `which` names (`matches`), only `model`'s when
    given; returns what was forgotten. Raises OSError."""
    path = path_in(home)
    gone: list[tuple[str, str, Kept]] = []
    if not path.exists():  # nothing kept: nothing made either
        return gone

    def change(windows: dict[str, dict[str, Kept]]) -> bool:
        for url in sorted(windows):
            if matches(url, which):
                for m in sorted(windows[url]):
                    if model is None or m == model:
                        gone.append((url, m, windows[url].pop(m)))
                if not windows[url]:
                    del windows[url]
        return bool(gone)

    _update(path, change)
    return gone


def forget_below(home: Path, key: str, model: str, accepted: int) -> Kept | None:
    """Forget the window kept for `key` and `model` if it is below `accepted`, the size of a prompt
    the server took whole (window_proof.py); returns what was forgotten. Raises OSError."""
    gone: list[Kept] = []

    def change(windows: dict[str, dict[str, Kept]]) -> bool:
        kept = windows.get(key, {}).get(model)
        if kept is None or kept.window >= accepted:  # kept anew meanwhile, or never
            return False
        gone.append(windows[key].pop(model))
        if not windows[key]:
            del windows[key]
        return True

    if path_in(home).exists():
        _update(path_in(home), change)
    return gone[0] if gone else None


def forgotten_line(ev: Any) -> str:
    """Said when a session forgets the window kept for its server (window_proof.py: event "window"
    "forgotten", tokens_before the window kept, tokens_after the prompt the server took)."""
    detail = ev.detail or {}
    return (f"forgot the window of {ev.tokens_before:,} tokens remembered for {detail.get('model', 'the model')} at "
            f"{shown(str(detail.get('endpoint', 'the server')))}: the server took a prompt of {ev.tokens_after:,} "
            "tokens whole")


def start_line(window: int, key: str, model: str, how: str | None = None) -> str:
    """Said once when a new session starts at the window remembered, in words true to how the server showed it
    (a refusal named it, prompts cut never did), and how to forget it: a larger window given meets the same limit."""
    at, more = shown(key), forget_hint(key)
    if how == "refused":
        return (f"working within {window:,} tokens, the window {at} named when it refused a request for {model} "
                f"in an earlier session {more}")
    if how == "cut":
        return (f"working within {window:,} tokens: in an earlier session {at} cut prompts for {model} to that size "
                f"without saying so {more}")
    return f"working within {window:,} tokens, the window {at} was found to have for {model} in an earlier session {more}"


def resumed_line(window: int, given: int, key: str, model: str, how: str | None) -> str:
    """Said when a resumed session given a window on its command line works within the smaller one
    it learned from that same server: the server's refusal is its word on what it takes."""
    at, more = shown(key), forget_hint(key)
    said = {"refused": f"the window {at} named when it refused a request for {model}",
            "cut": f"{at} cut prompts for {model} to that size without saying so"}.get(
                how or "", f"the window {at} was found to have for {model}")
    return f"working within {window:,} tokens, not the {given:,} given: {said} {more}"


def _saved(value: Any) -> tuple[int, int, str | None] | None:
    """A saved state's `learned.window` (context.plumbing.overflow.LearnedWindow, read here without
    the library, which the REPL's first line does not wait for): (window, given, server)."""
    if not isinstance(value, list) or len(value) not in (2, 3):
        return None
    window, given, *server = value
    ok = type(window) is int and type(given) is int and 0 < window < given and all(isinstance(x, str) for x in server)
    return (window, given, server[0] if server else None) if ok else None


def taken_back(home: Path, key: str, model: str, value: Any) -> list[Any] | None:
    """A session's saved `learned.window` as a session against `key` and `model` takes it back:
    learned there (`label`) and still kept here; one saved without its server (an older version's),
    named this one where the window kept here is that one. None: not taken back."""
    saved = _saved(value)
    if saved is None:
        return None
    window, given, server = saved
    kept = remembered(home, key, model)
    if server is None:
        return [window, given, label(key, model)] if kept == window else None
    return [window, given, server] if server == label(key, model) and kept is not None else None


def checked(session: Any, state: Any) -> Any:
    """A session's saved state (layers.json) without the server's limit it kept, where that is not
    to be taken back (`taken_back`); as it is for a ready model, whose windows are not kept here."""
    from ...context.saved_state import LEARNED

    learned = state.get(LEARNED) if isinstance(state, dict) else None
    if server_of(session) is None or not isinstance(learned, dict) or "window" not in learned:
        return state
    key = endpoint(session.opts.base_url, session.info.provider)
    learned = dict(learned)
    if (window := taken_back(session.opts.home or home_dir(), key, session.info.name, learned.pop("window"))):
        learned["window"] = window
    return {**state, LEARNED: learned}


def _given_on_command_line(session: Any) -> bool:
    config = session.opts.config
    return bool(session.opts.context_window) and (config is None or config.where("context_window") == "flag")


def start_at_remembered(session: Any) -> str | None:
    """At a session's start, with no window given and none its own state kept: the window
    remembered for its endpoint and model, if smaller than the one it would work in. The session's
    manager takes it as if learned (so the session keeps it, and /status says it is the server's);
    returns the line to say, or None. A resumed session that took its own back while given a larger
    window on its command line says that instead (`resumed_line`)."""
    from ...context.plumbing.overflow import LearnedWindow

    opts, cm = session.opts, session.cm
    key = endpoint(opts.base_url, session.info.provider)
    if (learned := cm.window_learned) is not None:  # the session learned one itself (a resumed session)
        if opts.model_override is not None or not _given_on_command_line(session):
            return None
        kept = remembered_as(opts.home or home_dir(), key, session.info.name)  # there: `checked` took it back
        return resumed_line(learned.window, learned.given, key, session.info.name, kept.how if kept else None)
    if opts.context_window or session.settings.context_window or opts.model_override is not None:
        return None
    with contextlib.suppress(OSError):
        kept = remembered_as(session.opts.home or home_dir(), key, session.info.name)
        given = cm.limits.window
        if kept is not None and kept.window < given:
            cm.set_window(kept.window)
            cm.window_learned = LearnedWindow(kept.window, given, cm.server)
            return start_line(kept.window, key, session.info.name, kept.how)
    return None


def banner_window(opts: Any, info: Any, side: Path | None = None) -> tuple[int, bool]:
    """The window a session will start in, for the REPL's first line (shown before the session
    is built), and whether it is `info`'s own (neither given, nor kept, nor remembered): `info.window`,
    or the one remembered for its endpoint and model when smaller and no window was given (the rule
    of `start_at_remembered`). Said 32,768 above 'working within 8,000'. A resumed session (`side`:
    its folder) starts within the server's limit its own state kept for that window
    (context/saved_state.py), as its manager takes it back: `-c` said 'window 32,768' over a toolbar
    and a /status of 8,000."""
    if side is not None and (kept := _kept_by_session(opts, info, side)) is not None:
        return kept, False
    if opts.context_window or opts.settings.context_window or opts.model_override is not None:
        return int(info.window), False  # given
    with contextlib.suppress(OSError):
        was = remembered_as(opts.home or home_dir(), endpoint(opts.base_url, info.provider), info.name)
        if was is not None and (was.window < info.window or was.how == REPORTED):  # reported: the window
            return was.window, False
    return int(info.window), True


def _kept_by_session(opts: Any, info: Any, side: Path) -> int | None:
    """The server's limit a session's saved state kept (`learned.window` of its layers.json) where
    its manager takes it back (`checked`, then the library's rule: learned below the window it is
    given now); None for anything else."""
    try:
        value = json.loads(read_own(side / "layers.json")).get("learned", {})["window"]
    except (OSError, ValueError, RecursionError, AttributeError, KeyError, TypeError):
        return None
    key, server = endpoint(opts.base_url, info.provider), None
    if opts.model_override is None:
        value, server = taken_back(opts.home or home_dir(), key, info.name, value), label(key, info.name)
    saved = _saved(value)
    return saved[0] if saved is not None and saved[1:] == (int(info.window), server) else None


def keep_learned(session: Any, window: int, trigger: str) -> None:
    """After the server taught `window` (`trigger` "reactive": a refusal; "cut": prompts it cut):
    kept for the next sessions. A home folder that cannot be written keeps nothing; the session goes on."""
    if session.opts.model_override is not None:
        return
    with contextlib.suppress(OSError):
        remember(session.opts.home or home_dir(), endpoint(session.opts.base_url, session.info.provider),
                 session.info.name, window, HOW.get(trigger))
