"""grep and glob: search the project without walking into .git, virtualenvs or node_modules.

Both always use Python (our own walk, and the `regex` engine, which speaks `re`'s syntax) so
results are the same on every machine, and both are capped, saying so when they cut. grep is also
bounded in time, because a pattern with nested repetition (`(a|aa)+$`) backtracks exponentially
on a line that almost matches: each line gets at most LINE_TIME_S of matching and the whole
search GREP_TIME_S, and it stops between lines when the turn is interrupted — so it always ends
and never holds up Ctrl-C or exit. It opens regular files only: a FIFO or a device would block or
never end.

Neither shows what a `deny_paths` rule covers: a denied file is not searched nor listed, a denied
folder not entered, and one line at the end says how many entries were left out (walk.py).

The walk itself (walk.py) is bounded too, for both tools: it is iterative (a tree 10,000 levels deep is
walked, not a RecursionError), it checks the clock and the interrupt between entries (300,000
empty files have no lines to check between), and it visits at most WALK_MAX_ENTRIES entries. When
a bound stops it, the tool returns what it found so far with a note saying where and why it
stopped. A line is read in pieces of at most LINE_MAX_BYTES, so one huge line cannot fill memory.

A file in Shift-JIS, EUC-JP, GBK or UTF-16 without a byte-order mark (text_encoding.py) is
searched as its text, and a line after the matches names those files that had one, with their
encoding: a shell's grep or sed sees other bytes there.

A matching line is shown whole up to LINE_SHOWN characters. A longer one (minified JSON, a log
line) is shown as a window of that size around its first match, headed by the match's column, so
text deep inside a long line is found and seen, not just counted.
"""

from __future__ import annotations

import io
import os
import re
import stat
import threading
import time
import unicodedata
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import regex

from ...words import quoted
from ..safety.checked_open import open_read
from ..safety.permissions import resolve_path
from .base import (
    MAX_GLOB_RESULTS,
    MAX_MATCHES,
    NotRun,
    ToolEnv,
    ToolFailure,
    _not_found,
    _shown,
    hidden_note,
    name_line,
)
from .text_encoding import SNIFF_BYTES, Encoding, sniff
from .walk import Bound, Found, _walk


def _named(env: ToolEnv, p: Path) -> str:
    """A path as grep and glob name it: as the model writes it back (`_shown`), on its one line. A
    file name may hold a line break (`x\\nsettings.py:3:PASSWORD = ...`): written as its escape
    (`name_line`, as a compaction message lists paths, an emoji sequence as it prints), it cannot
    start a line of its own and pass for a match in another file or a file found."""
    return name_line(_shown(env, p))


MAX_GLOB_PATTERNS = 256
"""The most patterns a glob's braces may expand to: each brace multiplies them (`{a,b}` twenty times
is a million), and they were all made before the walk's time bound could say a word."""
MATCH_TIME_S = 1.0
"""The most time one name may take to match a glob: nested `**` backtracks (`**/**/…/x` against a
deep path tried every way to split it), and a match runs between the walk's checks of its bound."""


class GlobTooLarge(ValueError):
    """A glob whose braces expand to more than MAX_GLOB_PATTERNS patterns."""


class GlobTooSlow(Exception):
    """A name took over MATCH_TIME_S to match a glob (`rel` is the name)."""

    def __init__(self, rel: str) -> None:
        super().__init__(rel)
        self.rel = rel


def _expand_braces(pattern: str) -> list[str]:
    """Every pattern `{a,b}` stands for, innermost braces first; GlobTooLarge past MAX_GLOB_PATTERNS."""
    todo, out = [pattern], []
    while todo:
        p = todo.pop()
        m = re.search(r"\{([^{}]*)\}", p)
        if not m:
            out.append(p)
            continue
        head, tail = p[: m.start()], p[m.end() :]
        todo += [head + alt + tail for alt in reversed(m.group(1).split(","))]
        if len(todo) + len(out) > MAX_GLOB_PATTERNS:
            raise GlobTooLarge(pattern)
    return out


def _too_large(pattern: str) -> str:
    return (f"the glob {quoted(pattern)} stands for more than {MAX_GLOB_PATTERNS} patterns (each {{a,b}} doubles "
            "them): use fewer braces, or a * where the names differ")


def _too_slow(tool: str, pattern: str, where: str) -> str:
    return (f"[{tool} stopped: the glob {quoted(pattern)} took over {MATCH_TIME_S:g} s to match {name_line(where)}; "
            "several ** in one glob try every way to split a deep path, use one]")


def _glob_regex(pattern: str) -> regex.Pattern[str]:
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
    return regex.compile("".join(out))


def nfc(text: str) -> str:
    """`text` in Unicode's composed form (NFC), where one `é` and an `e` with a combining accent
    (macOS's names, NFD) are the same characters; ASCII is given back as it is, not looked at."""
    return text if text.isascii() else unicodedata.normalize("NFC", text)


def _matcher(pattern: str) -> Callable[[str], bool]:
    """Whether a name matches `pattern`, both taken composed (`nfc`: `résumé.md` and `*é*` match a
    name macOS stored decomposed); GlobTooLarge for too many braces, and GlobTooSlow when a
    name takes over MATCH_TIME_S to match (the `regex` engine's timeout, which lets go of the
    interpreter while it matches, so the turn can still be stopped)."""
    regexes = [_glob_regex(p) for p in _expand_braces(nfc(pattern))]

    def match(rel: str) -> bool:
        try:
            return any(r.fullmatch(nfc(rel), timeout=MATCH_TIME_S) for r in regexes)
        except TimeoutError:
            raise GlobTooSlow(rel) from None

    return match


LINE_TIME_S = 1.0
GREP_TIME_S = 10.0
GLOB_TIME_S = 10.0
LINE_MAX_BYTES = 1 << 20
LINE_SHOWN = 500  # characters of a matching line shown; of a longer one, a window around the match


def _lines(fh: Any) -> Iterator[tuple[int, int, str]]:
    """(line number, column where the piece starts, text) with a line longer than LINE_MAX_BYTES
    given in pieces of that size."""
    n, at = 1, 0
    while piece := fh.readline(LINE_MAX_BYTES):
        yield n, at, piece
        if piece.endswith("\n"):
            n, at = n + 1, 0
        else:
            at += len(piece)


def _search(rx: Any, composed: Any, line: str, timeout: float) -> tuple[Any, str]:
    """`rx`'s first match in `line`, else that of the pattern composed (`composed`, NFC) in the line
    composed, so a pattern written in one normalization finds text stored in the other (`Crème`
    typed with one `è`, a file saved by macOS with an `e` and a combining accent); and the text the
    match is in. An ASCII line against an ASCII pattern is searched once, as it is."""
    found = rx.search(line, timeout=timeout)
    if found or (composed is rx and line.isascii()):
        return found, line
    text = nfc(line)
    if composed is rx and text == line:
        return None, line
    return composed.search(text, timeout=timeout), text


def _shown_line(piece: str, at: int, found: Any) -> str:
    """A matching line as grep shows it: whole when short, else LINE_SHOWN characters around the
    first match, after the match's 1-based column and the line's length (`N+` while the line goes
    on past this piece), with `…` where the line goes on."""
    text = piece.rstrip()
    ends = piece.endswith("\n") or len(piece) < LINE_MAX_BYTES  # the last piece of its line
    if at == 0 and ends and len(text) <= LINE_SHOWN:
        return text
    length = at + len(piece.rstrip("\r\n"))
    start = min(found.start(), len(text))
    where = f"[match at column {at + start + 1:,} of {length:,}{'' if ends else '+'}] "
    room = LINE_SHOWN - len(where)
    span = min(found.end(), len(text)) - start
    lo = min(max(0, start - max(0, room - span) // 2), max(0, len(text) - room))
    hi = lo + room
    before = "…" if lo > 0 or at > 0 else ""
    after = "…" if hi < len(text) or not ends else ""
    return f"{where}{before}{text[lo:hi]}{after}"


def _readable_inside(env: ToolEnv, f: Path) -> Path | None:
    """Where a file found by the walk is, when it may be read: its resolved target (a symlink in
    the project may point anywhere) is inside the fence and not denied, and it is a regular file.
    That resolved path is what is opened (safety/checked_open.py), not the one the walk found."""
    try:
        real = resolve_path(env.cwd, f)
        if env.permissions.read_refusal(real) is not None:
            return None
        return real if stat.S_ISREG(os.stat(real).st_mode) else None
    except (OSError, RuntimeError):  # a path too long, a symlink loop
        return None


MAX_NAMED = 10  # files named in the line that says which were not UTF-8


def _encodings_note(read_as: dict[str, Encoding]) -> str:
    """The line naming the files with a match whose text is in an encoding other tools read as bytes."""
    if not read_as:
        return ""
    names = [f"{name} ({enc.label})" for name, enc in list(read_as.items())[:MAX_NAMED]]
    more = f" and {len(read_as) - MAX_NAMED} more" if len(read_as) > MAX_NAMED else ""
    return (f"[not UTF-8: the lines above are read in each file's encoding, which edits keep: "
            f"{', '.join(names)}{more}]")


def _then(text: str, note: str) -> str:
    """`text`, and `note` on a line after it when there is one (how many entries a deny rule hid)."""
    return f"{text}\n{note}" if note else text


def grep_impl(env: ToolEnv, pattern: str, path: str | None = None, glob: str | None = None,
              stop: threading.Event | None = None, clock: Callable[[], float] = time.monotonic) -> str:
    try:
        rx = regex.compile(pattern)
        composed = rx if nfc(pattern) == pattern else regex.compile(nfc(pattern))
    except (regex.error, ValueError, OverflowError) as e:
        return ToolFailure(f"invalid regex {quoted(pattern)}: {e}")
    except RecursionError:  # `((((…` hundreds deep: the parser's words were 'maximum recursion depth exceeded'
        return ToolFailure(f"invalid regex {quoted(pattern)}: groups nested too deeply")
    root = resolve_path(env.cwd, path or ".")
    if refusal := env.permissions.read_refusal(root):
        return NotRun(refusal)
    if not root.exists():
        return _not_found(env, root)
    bound = Bound(GREP_TIME_S, stop, clock)
    files = [Found(root, root.name)] if root.is_file() else _walk(
        root, bound=bound, prune=env.permissions.is_private, hide=lambda p: env.permissions.own_deny_rule(p) is not None)
    try:
        name_ok = _matcher(glob) if glob else None
    except GlobTooLarge:
        return ToolFailure(_too_large(glob or ""))
    by_name = bool(glob and "/" not in glob)  # like ripgrep: a slash-free glob matches the file name
    hits: list[str] = []
    cut = ""
    left_out = 0  # entries a deny rule hides: not searched, and counted in one line
    read_as: dict[str, Encoding] = {}  # files with a match, in an encoding the shell's tools read as bytes
    for f, rel, denied, folder in files:
        try:
            if not folder and name_ok and not name_ok(f.name if by_name else rel):
                continue
        except GlobTooSlow as e:
            cut = _too_slow("grep", glob or "", e.rel)
            break
        if denied:
            left_out += 1
            continue
        if bound.exceeded(rel):
            break
        if (real := _readable_inside(env, f)) is None:
            continue
        try:
            with open_read(real) as raw:  # a link put in its way since the check: skipped, as unreadable
                if (enc := sniff(raw.read(SNIFF_BYTES))) is None:  # binary
                    continue
                raw.seek(0)
                codec, errors = enc.stream
                fh = io.TextIOWrapper(raw, encoding=codec, errors=errors)
                for n, at, line in _lines(fh):
                    if bound.exceeded(f"{_named(env, f)}:{n}"):
                        break
                    left = bound.left()
                    try:
                        found, text = _search(rx, composed, line, min(LINE_TIME_S, left))
                    except TimeoutError:
                        cut = (f"[grep stopped: the pattern took over {min(LINE_TIME_S, left):g} s on "
                               f"{_named(env, f)}:{n}; nested repetition like (a+)+ backtracks "
                               "exponentially, simplify it]")
                        break
                    if found:
                        shown = _shown_line(text, at, found)
                        if text is not line and shown == text.rstrip():  # the whole line: as the file has it
                            shown = line.rstrip()
                        hits.append(f"{_named(env, f)}:{n}:{shown}")
                        if enc.cjk or (enc.wide and not enc.bom):
                            read_as[_named(env, f)] = enc
                        if len(hits) > MAX_MATCHES:
                            break
        except OSError:
            continue
        if len(hits) > MAX_MATCHES or cut or bound.why:
            break
    if bound.why and not cut:
        cut = f"[grep {bound.why}; the matches above are the ones found so far: narrow the path or the glob]"
    note = f"{hidden_note(left_out)}, not searched" if left_out else ""
    note = _then(_encodings_note(read_as), note) if read_as else note
    if cut:
        return _then("\n".join([*hits[:MAX_MATCHES], cut]), note)
    if not hits:
        return _then(f"No matches for {quoted(pattern)} in {_named(env, root)}" + (
            f" (files matching {glob})" if glob else ""
        ), note)
    if len(hits) > MAX_MATCHES:
        return _then(
            "\n".join(hits[:MAX_MATCHES])
            + f"\n[stopped at {MAX_MATCHES} matches; narrow the pattern or path]", note
        )
    return _then("\n".join(hits), note)



def glob_impl(env: ToolEnv, pattern: str, path: str | None = None, stop: threading.Event | None = None,
              clock: Callable[[], float] = time.monotonic) -> str:
    parts = Path(pattern).parts
    fixed = 0  # leading components without wildcards become part of the search root
    while fixed < len(parts) - 1 and not any(c in parts[fixed] for c in "*?[{"):
        fixed += 1
    root = resolve_path(env.cwd, Path(path or ".", *parts[:fixed]))
    if refusal := env.permissions.read_refusal(root):
        return NotRun(refusal)
    rest = "/".join(parts[fixed:])
    if not root.is_dir():
        return ToolFailure(f"Directory not found: {_named(env, root)}")
    try:
        match = _matcher(rest)
    except GlobTooLarge:
        return ToolFailure(_too_large(pattern))
    depth = None if "**" in rest else rest.count("/") + 1
    bound = Bound(GLOB_TIME_S, stop, clock)
    found: list[Path] = []
    slow = ""
    left_out = 0  # entries a deny rule hides: not listed, and counted in one line
    try:
        for f in _walk(root, depth, bound, env.permissions.is_private, lambda p: env.permissions.own_deny_rule(p) is not None):
            if f.folder or (f.hidden and match(f.rel)):
                left_out += 1
            elif not f.hidden and match(f.rel):
                found.append(f.path)
    except GlobTooSlow as e:
        slow = _too_slow("glob", pattern, e.rel)

    def mtime(f: Path) -> int:
        try:
            return f.stat().st_mtime_ns
        except OSError:
            return 0

    found.sort(key=lambda f: (-mtime(f), str(f)))
    note = slow or (f"[glob {bound.why}; the files above are the ones found so far: narrow the pattern or path]"
                    if bound.why else "")
    if not found:
        return _then(note or f"No files match {quoted(pattern)} under {_named(env, root)}", hidden_note(left_out))
    shown = [_named(env, f) for f in found[:MAX_GLOB_RESULTS]]
    if len(found) > MAX_GLOB_RESULTS:
        shown.append(f"[{MAX_GLOB_RESULTS} of {len(found)} files shown, newest first; narrow the pattern]")
    return _then("\n".join([*shown, note] if note else shown), hidden_note(left_out))
