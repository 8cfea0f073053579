"""grep and glob: search the project without walking into .git, virtualenvs or node_modules.

Both always use Python (our own walk, and the `regex` engine, which speaks `re`'s syntax) so
results are the same on every machine, and both are capped, saying so when they cut. grep is also
bounded in time, because a pattern with nested repetition (`(a|aa)+$`) backtracks exponentially
on a line that almost matches: each line gets at most LINE_TIME_S of matching and the whole
search GREP_TIME_S, and it stops between lines when the turn is interrupted — so it always ends
and never holds up Ctrl-C or exit. It opens regular files only: a FIFO or a device would block or
never end.

Neither shows what a `deny_paths` rule covers: a denied file is not searched nor listed, a denied
folder not entered, and one line at the end says how many entries were left out (walk.py). Inside
a git work tree, neither looks at what git ignores (ignores.py) unless the path names it, nor
follows a symlinked folder: a line names what was skipped (search_notes.py). Neither enters a
folder of installed packages git does not track (`node_modules`, a virtual environment) unless
the path names it, and when one found nothing, a line names those (walk.py).

grep searches a run of lines (BLOCK_CHARS) at once first, for a pattern proved to find something
in the run wherever it finds something in one of its lines (grep_runs.py): where it finds nothing
there, the run costs one search instead of one a line. Where it finds something, the lines are
searched one by one, so a match is always one line's. Any other pattern is searched line by line.

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

A line is searched without its ending (`\\n`, `\\r\\n` or a lone `\\r`, all read as `\\n`), as `grep -P`
and ripgrep search it: `\\s+$` finds trailing blanks, not every line, and `[^a]` no line of `a`s.
"""

from __future__ import annotations

import io
import re
import threading
import time
import unicodedata
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import regex

from ...words import quoted
from ..safety.checked_open import open_read, workdir_gone
from ..safety.permissions import resolve_path
from .base import (
    MAX_GLOB_RESULTS,
    MAX_MATCHES,
    NotRun,
    ToolEnv,
    ToolFailure,
    _not_found,
    hidden_note,
)
from .glob_patterns import MATCH_TIME_S, GlobTooLarge, GlobTooSlow, _expand_braces, _too_large, _too_slow
from .grep_runs import RunSearch, across_lines
from .grep_shown import _Hit
from .search_files import _FileName, _namer, _readable_inside
from .search_notes import Skipped, _encodings_note, _then
from .text_encoding import SNIFF_BYTES, Encoding, sniff
from .walk import Bound, Found, _walk


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


BLOCK_CHARS = 1 << 16  # of lines searched at once, so a run with no match costs one search, not one a line


class _FileGrep:
    """One file's search, line by line, adding its matches to `hits`: one per line, however long,
    with the line's length; a run of lines the pattern finds nothing in at once is skipped."""

    def __init__(self, rx: Any, composed: Any, bound: Bound, name: _FileName, hits: list[str]) -> None:
        self.rx, self.composed, self.bound, self.name, self.hits = rx, composed, bound, name, hits
        self.n = self.at = 0
        self.piece = ""
        self.hit: _Hit | None = None  # a match in a line longer than LINE_MAX_BYTES whose end is still to be read

    def where(self) -> str:
        return f"{self.name()}:{self.n}"

    def run(self, lines: list[tuple[int, int, str]], block: RunSearch | None) -> str | None:
        """Search a run of lines: None to go on, else the note the search stops with ('' for none).
        A run is searched at once only when made of whole lines (each before the last ends with its
        `\n`: a line longer than LINE_MAX_BYTES is not)."""
        if (self.hit is None and block is not None and block.on
                and all(piece.endswith("\n") for _, _, piece in lines[:-1])):
            self.n = lines[0][0]
            if self.bound.exceeded(self.where):
                return ""
            try:
                found, _ = _search(block.rx, block.composed, "".join(piece for _, _, piece in lines),
                                   min(LINE_TIME_S, self.bound.left()))
            except TimeoutError:  # searched line by line, each under its own limit, as is the rest
                found, block.on = True, False
            if not found:
                self.n, self.at, self.piece = lines[-1]
                return None
        for line in lines:
            if (stop := self.line(*line)) is not None:
                return stop
        return None

    def line(self, n: int, at: int, piece: str) -> str | None:
        self.n, self.at, self.piece = n, at, piece
        if self.bound.exceeded(self.where):
            return ""
        if self.hit is None:  # once a line has a match, the rest of it is only read for its length
            per_line = min(LINE_TIME_S, self.bound.left())
            body = piece[:-1] if piece.endswith("\n") else piece  # the line without its ending, as `grep -P`
            try:
                found, text = _search(self.rx, self.composed, body, per_line)
            except TimeoutError:
                if per_line < LINE_TIME_S:  # what ran out is the search's time, not the pattern's own
                    self.bound.ran_out(self.where())
                    return ""
                return (f"[grep stopped: the pattern took over {LINE_TIME_S:g} s on {self.where()}; nested "
                        "repetition like (a+)+ backtracks exponentially, simplify it]")
            if not found:
                return None
            self.hit = _Hit(n, text, body, at, found)
        if piece.endswith("\n") or len(piece) < LINE_MAX_BYTES:  # the line's last piece
            length = at + len(piece.rstrip("\n"))
            self.hits.append(f"{self.name()}:{self.hit.shown(length)}")
            self.hit = None
            if len(self.hits) > MAX_MATCHES:
                return ""
        return None

    def finish(self) -> None:
        """The file ended, or the search stopped, inside a long line with a match: that match too."""
        if self.hit is not None:
            self.hits.append(f"{self.name()}:{self.hit.shown(self.at + len(self.piece), more=bool(self.bound.why))}")


def _grep_lines(fh: Any, rx: Any, composed: Any, block: RunSearch | None, bound: Bound,
                name: _FileName, hits: list[str]) -> str:
    """Search one open file into `hits`; the note that stops the whole search when the pattern takes
    too long on a line, else '' (`bound.why` says when the search's time ran out or it was stopped)."""
    grep = _FileGrep(rx, composed, bound, name, hits)
    run: list[tuple[int, int, str]] = []
    size = 0
    for line in _lines(fh):
        run.append(line)
        size += len(line[2])
        if size >= BLOCK_CHARS:
            if (stop := grep.run(run, block)) is not None:
                grep.finish()
                return stop
            run, size = [], 0
    stop = grep.run(run, block) if run else None
    grep.finish()
    return stop or ""


def grep_impl(env: ToolEnv, pattern: str, path: str | None = None, glob: str | None = None,
              stop: threading.Event | None = None, clock: Callable[[], float] = time.monotonic) -> str:
    try:
        rx = regex.compile(pattern)
        composed = rx if nfc(pattern) == pattern else regex.compile(nfc(pattern))
    except (regex.error, ValueError, OverflowError) as e:
        return ToolFailure(f"invalid regex {quoted(pattern)}: {e}")
    except RecursionError:  # `((((…` hundreds deep: the parser's words were 'maximum recursion depth exceeded'
        return ToolFailure(f"invalid regex {quoted(pattern)}: groups nested too deeply")
    block = across_lines(pattern, nfc(pattern))
    root = resolve_path(env.cwd, path or ".")
    if refusal := env.permissions.read_refusal(root):
        return NotRun(refusal)
    if not root.exists():  # in the working directory moved or deleted meanwhile, that is said (as glob says it)
        if root.is_relative_to(Path(env.cwd).resolve()) and (gone := workdir_gone(env.cwd)) is not None:
            return ToolFailure(f"grep: {gone.strerror}")
        return _not_found(env, root)
    named = _namer(env)
    bound = Bound(GREP_TIME_S, stop, clock, name=named)
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
    skipped = Skipped(named)  # entries git ignores, symlinked folders, installed packages: not searched, and named
    read_as: dict[str, Encoding] = {}  # files with a match, in an encoding the shell's tools read as bytes
    for entry in files:
        f = entry.path
        try:
            if not entry.folder and name_ok and not name_ok(f.name if by_name else entry.rel):
                continue
        except GlobTooSlow as e:
            cut = _too_slow("grep", glob or "", e.rel)
            break
        if entry.hidden:
            left_out += 1
            continue
        if entry.ignored or entry.link or entry.installed:
            skipped.add(entry)
            continue
        name = _FileName(named, f)
        if bound.exceeded(name):
            break
        if (real := _readable_inside(env, f)) is None:
            continue
        try:
            with open_read(real) as raw:  # a link put in its way since the check: skipped, as unreadable
                if (enc := sniff(raw.read(SNIFF_BYTES))) is None:  # binary
                    continue
                raw.seek(0)
                codec, errors = enc.stream
                before = len(hits)
                cut = _grep_lines(io.TextIOWrapper(raw, encoding=codec, errors=errors), rx, composed, block, bound,
                                  name, hits)
                if len(hits) > before and (enc.cjk or (enc.wide and not enc.bom)):
                    read_as[name()] = enc
        except OSError:
            continue
        if len(hits) > MAX_MATCHES or cut or bound.why:
            break
    if bound.why and not cut:
        cut = f"[grep {bound.why}; the matches above are the ones found so far: narrow the path or the glob]"
    note = f"{hidden_note(left_out)}, not searched" if left_out else ""
    note = _then(_encodings_note(read_as), note) if read_as else note
    note = _then(said, note) if (said := skipped.note("searched", bool(hits))) else note
    if cut:
        return _then("\n".join([*hits[:MAX_MATCHES], cut]), note)
    if not hits:
        return _then(f"No matches for {quoted(pattern)} in {named(root)}" + (
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
    named = _namer(env)
    if not root.is_dir():  # in the working directory moved or deleted meanwhile, that is said (as bash says it)
        if root.is_relative_to(Path(env.cwd).resolve()) and (gone := workdir_gone(env.cwd)) is not None:
            return ToolFailure(f"glob: {gone.strerror}")
        return ToolFailure(f"Directory not found: {named(root)}")
    try:
        match = _matcher(rest)
    except GlobTooLarge:
        return ToolFailure(_too_large(pattern))
    depth = None if "**" in rest else rest.count("/") + 1
    bound = Bound(GLOB_TIME_S, stop, clock, name=named)
    found: list[Path] = []
    slow = ""
    left_out = 0  # entries a deny rule hides: not listed, and counted in one line
    skipped = Skipped(named)  # entries git ignores, symlinked folders, installed packages: not listed, and named
    try:
        for f in _walk(root, depth, bound, env.permissions.is_private, lambda p: env.permissions.own_deny_rule(p) is not None):
            if not (f.folder or match(f.rel)):
                continue
            if f.hidden:
                left_out += 1
            elif f.ignored or f.link or f.installed:
                skipped.add(f)
            else:
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
    after = _then(said, hidden_note(left_out)) if (said := skipped.note("listed", bool(found))) else hidden_note(left_out)
    if not found:
        return _then(note or f"No files match {quoted(pattern)} under {named(root)}", after)
    shown = [named(f) for f in found[:MAX_GLOB_RESULTS]]
    if len(shown) < len(found):
        shown.append(f"[{MAX_GLOB_RESULTS} of {len(found)} files shown, newest first; narrow the pattern]")
    return _then("\n".join([*shown, note] if note else shown), after)
