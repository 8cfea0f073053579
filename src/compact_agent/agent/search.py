"""grep and glob: search the project without walking into .git, virtualenvs or node_modules.

Both always use Python (our own walk, and the `regex` engine, which speaks `re`'s syntax) so
results are the same on every machine, and both are capped, saying so when they cut. grep is also
bounded in time, because a pattern with nested repetition (`(a|aa)+$`) backtracks exponentially
on a line that almost matches: each line gets at most LINE_TIME_S of matching and the whole
search GREP_TIME_S, and it stops between lines when the turn is interrupted — so it always ends
and never holds up Ctrl-C or exit. It opens regular files only: a FIFO or a device would block or
never end.
"""

from __future__ import annotations

import os
import re
import stat
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import regex

from .permissions import resolve_path
from .tools import (
    MAX_GLOB_RESULTS,
    MAX_MATCHES,
    SKIP_DIRS,
    ToolEnv,
    ToolFailure,
    _is_binary,
    _not_found,
    _shown,
)


def _expand_braces(pattern: str) -> list[str]:
    m = re.search(r"\{([^{}]*)\}", pattern)
    if not m:
        return [pattern]
    head, tail = pattern[: m.start()], pattern[m.end() :]
    return [x for alt in m.group(1).split(",") for x in _expand_braces(head + alt + tail)]


def _glob_regex(pattern: str) -> re.Pattern[str]:
    """Translate a glob with `**` (any number of directories) into a regex over '/'-joined paths."""
    out, i = [], 0
    while i < len(pattern):
        if pattern.startswith("**/", i):
            out.append("(?:.*/)?")
            i += 3
        elif pattern.startswith("**", i):
            out.append(".*")
            i += 2
        elif pattern[i] == "*":
            out.append("[^/]*")
            i += 1
        elif pattern[i] == "?":
            out.append("[^/]")
            i += 1
        elif pattern[i] == "[" and (j := pattern.find("]", i + 2)) != -1:
            body = pattern[i + 1 : j]
            out.append("[" + ("^" + body[1:] if body.startswith("!") else body).replace("\\", "\\\\") + "]")
            i = j + 1
        else:
            out.append(re.escape(pattern[i]))
            i += 1
    return re.compile("".join(out))


def _matcher(pattern: str) -> Callable[[str], bool]:
    regexes = [_glob_regex(p) for p in _expand_braces(pattern)]
    return lambda rel: any(r.fullmatch(rel) for r in regexes)


def _walk(root: Path, max_depth: int | None = None) -> Iterator[tuple[Path, str]]:
    """(file, path relative to root) under root, sorted, pruning SKIP_DIRS and beyond max_depth."""
    for dirpath, dirnames, filenames in os.walk(root):
        rel_dir = os.path.relpath(dirpath, root)
        depth = 0 if rel_dir == "." else rel_dir.count(os.sep) + 1
        keep = max_depth is None or depth + 1 < max_depth
        dirnames[:] = sorted(d for d in dirnames if keep and d not in SKIP_DIRS)
        for name in sorted(filenames):
            rel = name if rel_dir == "." else f"{Path(rel_dir).as_posix()}/{name}"
            yield Path(dirpath) / name, rel


LINE_TIME_S = 1.0
GREP_TIME_S = 10.0


def _readable_inside(env: ToolEnv, f: Path) -> bool:
    """A file found by the walk may be read: its resolved target (a symlink in the project may
    point anywhere) is inside the fence and not denied, and it is a regular file."""
    real = resolve_path(env.cwd, f)
    if env.permissions.read_refusal(real) is not None:
        return False
    try:
        return stat.S_ISREG(os.stat(real).st_mode)
    except OSError:
        return False


def grep_impl(env: ToolEnv, pattern: str, path: str | None = None, glob: str | None = None,
              stop: threading.Event | None = None) -> str:
    try:
        rx = regex.compile(pattern)
    except (regex.error, ValueError, OverflowError) as e:
        return ToolFailure(f"invalid regex {pattern!r}: {e}")
    root = resolve_path(env.cwd, path or ".")
    if refusal := env.permissions.read_refusal(root):
        return ToolFailure(refusal)
    if not root.exists():
        return _not_found(env, root)
    files = [(root, root.name)] if root.is_file() else _walk(root)
    name_ok = _matcher(glob) if glob else None
    by_name = bool(glob) and "/" not in glob  # like ripgrep: a slash-free glob matches the file name
    hits: list[str] = []
    deadline = time.monotonic() + GREP_TIME_S
    cut = ""
    for f, rel in files:
        if name_ok and not name_ok(f.name if by_name else rel):
            continue
        if not _readable_inside(env, f):
            continue
        try:
            if _is_binary(f):
                continue
            with f.open(encoding="utf-8", errors="replace") as fh:
                for n, line in enumerate(fh, 1):
                    left = deadline - time.monotonic()
                    if left <= 0 or (stop is not None and stop.is_set()):
                        cut = f"[grep stopped after {GREP_TIME_S:g} s at {_shown(env, f)}:{n}; narrow the path]"
                        break
                    try:
                        found = rx.search(line, timeout=min(LINE_TIME_S, left))
                    except TimeoutError:
                        cut = (f"[grep stopped: the pattern took over {min(LINE_TIME_S, left):g} s on "
                               f"{_shown(env, f)}:{n}; nested repetition like (a+)+ backtracks "
                               "exponentially, simplify it]")
                        break
                    if found:
                        hits.append(f"{_shown(env, f)}:{n}:{line.rstrip()[:500]}")
                        if len(hits) > MAX_MATCHES:
                            break
        except OSError:
            continue
        if len(hits) > MAX_MATCHES or cut:
            break
    if cut:
        return "\n".join([*hits[:MAX_MATCHES], cut])
    if not hits:
        return f"No matches for {pattern!r} in {_shown(env, root)}" + (
            f" (files matching {glob})" if glob else ""
        )
    if len(hits) > MAX_MATCHES:
        return (
            "\n".join(hits[:MAX_MATCHES])
            + f"\n[stopped at {MAX_MATCHES} matches; narrow the pattern or path]"
        )
    return "\n".join(hits)


def glob_impl(env: ToolEnv, pattern: str, path: str | None = None) -> str:
    parts = Path(pattern).parts
    fixed = 0  # leading components without wildcards become part of the search root
    while fixed < len(parts) - 1 and not any(c in parts[fixed] for c in "*?[{"):
        fixed += 1
    root = resolve_path(env.cwd, Path(path or ".", *parts[:fixed]))
    if refusal := env.permissions.read_refusal(root):
        return ToolFailure(refusal)
    rest = "/".join(parts[fixed:])
    if not root.is_dir():
        return ToolFailure(f"Directory not found: {_shown(env, root)}")
    match = _matcher(rest)
    depth = None if "**" in rest else rest.count("/") + 1
    found = [f for f, rel in _walk(root, depth) if match(rel)]

    def mtime(f: Path) -> int:
        try:
            return f.stat().st_mtime_ns
        except OSError:
            return 0

    found.sort(key=lambda f: (-mtime(f), str(f)))
    if not found:
        return f"No files match {pattern!r} under {_shown(env, root)}"
    shown = [_shown(env, f) for f in found[:MAX_GLOB_RESULTS]]
    if len(found) > MAX_GLOB_RESULTS:
        shown.append(f"[{MAX_GLOB_RESULTS} of {len(found)} files shown, newest first; narrow the pattern]")
    return "\n".join(shown)


# -------------------------------------------------------------------------------- toolset, mentions
