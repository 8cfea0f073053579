"""Named points inside every durable write, where a test can kill the process or fail the write.

The library only defines the points; it never reads the environment. The agent's entry module
`compact_agent.crashpoints` arms them from the variables below at start-up (`arm_from_environment`).

Crash safety is only believable if a crash is injected exactly where it hurts: half-way through an
archive copy, between writing a temp file and renaming it, in the middle of an appended line. Timing
a SIGKILL from outside rarely lands there, so each writer calls `hit(name)` at those moments and
a harness picks the moment with an environment variable:

    COMPACT_AGENT_CRASH_AT="archive.partial:2"          # SIGKILL at the 2nd time that point is reached
    COMPACT_AGENT_CRASH_AT="rewrite.synced:1:stop"       # SIGSTOP instead, so the harness can inspect
                                                          # the disk at that instant, then SIGKILL
    COMPACT_AGENT_CRASH_AT="append.partial:3:enospc"     # raise OSError(ENOSPC) there (also: eacces,
                                                          # eio); the count then keeps going, so a
                                                          # spec `:N+` fails every hit from N on
Several specs are separated by commas. Points (`<writer>.<stage>`):

    append.partial / append.done        session JSONL append (partial = half the bytes are written)
    archive.partial / .synced / .renamed   the copy to compact-history/ (synced = temp file complete)
    rewrite.partial / .synced / .renamed   the atomic rewrite of the session after a compaction
    write.partial / .synced / .renamed     any other `atomic_write` (read state, checkpoints)
    spill.partial / .synced / .renamed     an L1 tool-result spill file
    collapse.partial / collapse.done       an L4 commit-log append
    collapse.trim.partial / .synced / .renamed   its rewrite without the commits a compaction dropped
    notes.partial / .synced / .renamed     the session-memory notes file

`COMPACT_AGENT_CRASH_TALLY=<file>` makes a run write how often each point was reached (JSON) when
it exits, so a harness can pick points that a run really reaches.

When neither variable is set (always, outside tests) `hit` is a single global test, and writers
write in one piece as before.
"""

from __future__ import annotations

import atexit
import errno
import json
import os
import signal
from collections import Counter
from collections.abc import Mapping
from dataclasses import dataclass

ENV = "COMPACT_AGENT_CRASH_AT"
TALLY_ENV = "COMPACT_AGENT_CRASH_TALLY"

_ERRNOS = {"enospc": errno.ENOSPC, "eacces": errno.EACCES, "eio": errno.EIO, "erofs": errno.EROFS}


@dataclass(frozen=True)
class Spec:
    point: str
    nth: int
    action: str = "kill"  # kill | stop | enospc | eacces | eio | erofs
    onward: bool = False  # `N+`: every hit from the Nth on (for errors that persist, like a full disk)


def parse(text: str) -> list[Spec]:
    """`point:n[+][:action]` specs separated by commas; malformed ones are ignored."""
    specs: list[Spec] = []
    for item in text.split(","):
        bits = item.strip().split(":")
        if len(bits) < 2 or not bits[0]:
            continue
        count = bits[1].strip()
        onward = count.endswith("+")
        try:
            nth = int(count.rstrip("+"))
        except ValueError:
            continue
        action = bits[2].strip().lower() if len(bits) > 2 else "kill"
        if action not in ("kill", "stop", *_ERRNOS):
            continue
        specs.append(Spec(bits[0].strip(), nth, action, onward))
    return specs


_specs: list[Spec] = []
_counts: Counter[str] = Counter()
_tally = ""
enabled: bool = False
"""Writers split a write in two (to expose `.partial`) only when a crash point is armed."""


def write_tally() -> None:
    """Write the hit counts to the tally file, if one was asked for (also done at exit)."""
    if _tally:
        with open(_tally, "w", encoding="utf-8") as f:
            json.dump(dict(_counts), f)


atexit.register(write_tally)


def configure(text: str, tally: str = "") -> None:
    """Arm crash points in-process, as the environment variables do at start-up ('' disarms); for
    tests that do not start a fresh interpreter (in-process sessions, forked processes)."""
    global _specs, _tally, enabled
    _specs = parse(text)
    _tally = tally
    enabled = bool(_specs or _tally)
    _counts.clear()


def arm_from_environment(environ: Mapping[str, str]) -> None:
    """Arm the points the harness asked for in `environ` (the agent passes `os.environ`)."""
    if environ.get(ENV) or environ.get(TALLY_ENV):
        configure(environ.get(ENV, ""), environ.get(TALLY_ENV, ""))


def hit(point: str) -> None:
    """Called by writers at `point`; kills, stops or fails when an armed spec says so."""
    if not enabled:
        return
    _counts[point] += 1
    n = _counts[point]
    for spec in _specs:
        if spec.point != point or not (n == spec.nth or (spec.onward and n >= spec.nth)):
            continue
        if spec.action == "kill":
            os.kill(os.getpid(), signal.SIGKILL)
        elif spec.action == "stop":
            os.kill(os.getpid(), signal.SIGSTOP)  # the harness inspects the disk, then SIGKILLs
        else:
            code = _ERRNOS[spec.action]
            raise OSError(code, f"{os.strerror(code)} (injected at {point})")


def write_in_two(fd: int, data: bytes, point: str) -> None:
    """`os.write` all of `data`; when armed, half first, then `<point>.partial`, then the rest.

    Plain `os.write` may also write less than asked (a full disk, a signal); the loop finishes it.
    """
    view = memoryview(data)
    if enabled and len(view) > 1:
        half = len(view) // 2
        _write_all(fd, view[:half])
        hit(f"{point}.partial")
        view = view[half:]
    _write_all(fd, view)


def _write_all(fd: int, view: memoryview) -> None:
    while view:
        n = os.write(fd, view)
        view = view[n:]
