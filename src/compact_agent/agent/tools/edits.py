"""write_file and edit_file: the tools that change files.

Apart from reading (files.py) because they answer to more: an edit goes through the read-state
guard (file_state.py: the model must have seen the file as it is now), the permission check
(safety/permissions.py) and the checkpoint store (checkpoints.py), in that order, and is written
atomically in the file's own encoding and line endings (line_endings.py). The toolset runs
write/edit as async functions without awaits, so parallel tool calls cannot interleave two edits
of one file.
"""

from __future__ import annotations

import difflib
import logging
import os
import re
import stat
import unicodedata
from pathlib import Path
from typing import Any

from ...regular_file import open_regular
from ..safety.checked_open import Swapped, make_folders, read_checked, workdir_gone
from ..safety.permissions import Decision, resolve_path
from .base import (
    MAX_LINE_CHARS,
    SNIPPET_CONTEXT,
    SNIPPET_MAX_LINES,
    NotRun,
    ToolEnv,
    ToolFailure,
    _not_found,
    _numbered,
    _shown,
)
from .file_state import Changed, atomic_write_bytes
from .legacy_text import foreign_to_cjk
from .line_endings import BREAK, NAMES, break_count, dominant, lines, with_ending
from .text_encoding import SNIFF_BYTES, UTF8, Encoding, decode, escaped_bytes, sniff
from .text_encoding import shown as shown_text

log = logging.getLogger(__name__)


def _notify(env: ToolEnv, tool: str, info: dict[str, Any]) -> None:
    if env.on_change is None:
        return
    try:
        env.on_change(tool, info)
    except Exception:  # the UI must not turn a successful write into a failed tool call
        log.exception("on_change callback failed")


def _instruction(decision: Decision) -> dict[str, str | None]:
    """What the change says of an instruction file written without a question (`instruction`: how
    it is named; `unasked`: why nobody was asked; `custom_command`: the command whose file it is),
    for the UI to tell the user (permissions.py)."""
    if decision.instruction is None or decision.unasked is None:
        return {}
    return {"instruction": decision.instruction, "unasked": decision.unasked, "custom_command": decision.command}


def _diff(old: str, new: str, name: str, cap: int = 4_000) -> str:
    lines = difflib.unified_diff(old.splitlines(), new.splitlines(), name, name, n=2, lineterm="")
    out = shown_text("\n".join(lines))
    return out if len(out) <= cap else out[:cap] + "\n… (diff truncated)"


def _count_lines(text: str) -> int:
    return sum(1 for _ in lines(text))


def _written_as(endings: set[str]) -> str:
    """What a write result says when the model's line breaks were written as the file's ending."""
    if not endings:
        return ""
    if len(endings) > 1:
        return ", line breaks written as the lines around them end"
    return f", line breaks written as {NAMES[next(iter(endings))]} to match the file"


def _old_pattern(old: str) -> re.Pattern[str]:
    """`old` found whatever ending each of its line breaks has in the file: the model saw the
    lines without their endings (read_file shows none), and writes a break as LF."""
    return re.compile("(?:\r\n|\r|\n)".join(re.escape(part) for part in BREAK.split(old)))


def _either_form(old: str) -> re.Pattern[str]:
    """`old` found as `_old_pattern` finds it, each accented character in either Unicode form: one
    `è` or an `e` and a combining accent (NFD, as macOS saves names and some editors text), so the
    model's `Crème` finds the file's."""
    def piece(part: str) -> str:
        return "".join(re.escape(c) if (d := unicodedata.normalize("NFD", c)) == c
                       else f"(?:{re.escape(c)}|{re.escape(d)})" for c in part)

    return re.compile("(?:\r\n|\r|\n)".join(piece(part) for part in BREAK.split(unicodedata.normalize("NFC", old))))


def _in_form(new: str, found: str) -> tuple[str, str]:
    """`new` in the Unicode form of `found`, the file's text it replaces, and what the result says."""
    composed = unicodedata.is_normalized("NFC", found)
    name = "composed (NFC)" if composed else "decomposed (NFD)"
    return (unicodedata.normalize("NFC" if composed else "NFD", new),
            f", old_string found in the file's {name} form and new_string written so")


def _guard_current(env: ToolEnv, p: Path, verb: str) -> str | None:
    shown = _shown(env, p)
    if env.read_state.get(p) is None:
        if (size := _binary(p)) is not None:  # read_file shows none, so "read it first" sent the model round
            return ToolFailure(f"refused: {shown} is a binary file ({size} bytes); edit_file and write_file change "
                               "only text files: change it with bash (a command or a script) if it should change.")
        if env.read_state.was_summarised(p):  # read before, then compacted away
            return ToolFailure(f"File was read before the conversation was compacted, and that read is no longer in "
                               f"view: {shown}; read it again with read_file before you {verb} it.")
        return ToolFailure(f"File has not been read yet: {shown}; read it with read_file before you {verb} it.")
    if not env.read_state.is_current(p):
        return ToolFailure(f"File changed on disk since it was read: {shown}; read it again before you {verb} it.")
    return None


def _binary(p: Path) -> int | None:
    """The size of the file at `p` if it is binary (read_file does not show it), else None."""
    try:
        with open_regular(p) as f:
            return os.fstat(f.fileno()).st_size if sniff(f.read(SNIFF_BYTES)) is None else None
    except (OSError, ValueError):
        return None


def _file_text(shown: str, p: Path) -> tuple[str, Encoding, bytes] | ToolFailure:
    """The whole text of an existing file, its encoding, and its bytes (what the change is made
    from: the write checks the file still holds them), decoded as read_file decodes it."""
    raw = read_checked(p)  # opened as the fence checked it (safety/checked_open.py)
    if (enc := sniff(raw[:SNIFF_BYTES])) is None:
        return ToolFailure(f"refused: {shown} is a binary file ({len(raw)} bytes); only text files are edited.")
    if (decoded := decode(raw, enc)) is None:
        if not enc.bom:  # UTF-16 without a mark in its first bytes only
            return ToolFailure(f"refused: {shown} is a binary file ({len(raw)} bytes); only text files are edited.")
        return ToolFailure(f"refused: {shown} starts with a {enc.name} byte-order mark but is not {enc.name} text.")
    return (*decoded, raw)


def _read_only(env: ToolEnv, p: Path) -> ToolFailure | None:
    """Refused when the user made the file read-only: no write bit for anyone, or none for its owner
    when that is us (a rename over it needs only the folder's, so it went through; root too)."""
    try:
        st = os.stat(p, follow_symlinks=False)
    except OSError:
        return None
    mode = stat.S_IMODE(st.st_mode)
    if mode & 0o222 and not (st.st_uid == os.geteuid() and not mode & stat.S_IWUSR) and os.access(p, os.W_OK):
        return None
    return ToolFailure(f"refused: {_shown(env, p)} is read-only (mode {mode:04o}); make it writable first if it "
                       "should change.")


_NOT_ASCII = re.compile(r"[^\x00-\x7f\udc80-\udcff]")  # a character past ASCII, not a byte kept as it was


def _encoded(shown: str, text: str, enc: Encoding, was: str = "") -> bytes | ToolFailure:
    """`text` in the file's own encoding (a user's UTF-16 or Latin-1 file is never rewritten as
    UTF-8), or why it cannot be: a character that encoding has no bytes for, or, in a file `was`
    whose bytes past ASCII are mostly not UTF-8 and that no known encoding reads, any character
    past ASCII added (it would go in as UTF-8, among text in another encoding), or, in a file read
    as Shift-JIS, EUC-JP or GBK, a letter of another script added (`foreign_to_cjk`: a Latin-1 file
    taken for GBK would get "\xe1" as GBK's pinyin letter, two bytes that are not "\xe1" in it)."""
    stray = escaped_bytes(was) if enc == UTF8 else 0
    if stray and stray >= len(_NOT_ASCII.findall(was)):
        added = set(_NOT_ASCII.findall(text)) - set(_NOT_ASCII.findall(was))
        if added:
            ch = min(added, key=text.index)
            return ToolFailure(
                f"refused: {shown} is not UTF-8 ({stray:,} of its bytes are not) and not in an encoding this "
                f"tool reads, so {ch!r} (U+{ord(ch):04X}) cannot be written in it; write only ASCII "
                "characters there, or convert the file to UTF-8 first (iconv).")
    if enc.cjk and (foreign := {c for c in _NOT_ASCII.findall(text) if foreign_to_cjk(c)} - set(was)):
        at = min(text.index(c) for c in foreign)
        ch, line = text[at], break_count(text, at) + 1
        return ToolFailure(
            f"refused: {shown} is read as {enc.name} text, and {ch!r} (U+{ord(ch):04X}, line {line}) is not a "
            f"character such text holds; if the file is in another encoding, convert it to UTF-8 first (iconv), "
            f"else write only ASCII, Chinese or Japanese characters there.")
    try:
        return enc.encode(text)
    except UnicodeEncodeError as e:
        ch, line = e.object[e.start], break_count(text, e.start) + 1
        return ToolFailure(
            f"refused: {shown} is {enc.name} text, which has no {ch!r} (U+{ord(ch):04X}, line {line}); "
            f"write only characters {enc.name} has (the file keeps its encoding)."
        )


def _kept(enc: Encoding) -> str:
    """What a write result says of an encoding kept that is not plain UTF-8."""
    return "" if enc == UTF8 else f", kept as {enc.label}"


def _commit(env: ToolEnv, p: Path, data: bytes, was: bytes | None, verb: str) -> ToolFailure | str:
    """Checkpoint, write, and remember the new version so the next edit needs no re-read; what the
    result adds ("" or what became of the file's other names), or why nothing was written.

    The file must still hold `was`, what the change was made from (None: be absent): the user may
    have saved it, or made it, while asked about the change. Every file is written atomically (temp
    file, fsync, rename), one with other names (hard links) too: they keep the old text, and the
    result says so. Writing into the file itself would change them as well, and they may be outside
    the working directory (a package manager's store, a `cp -al` snapshot), where the tools never
    write; where they are cannot be known. A failed write names the file the model asked for, not
    the temp file beside it."""
    if was is not None and (refusal := _read_only(env, p)):  # made read-only while the user was asked
        return refusal
    if not _holds_still(p, was):  # changed while the user was asked: refused before the checkpoint saves it
        return _changed(env, p, was, verb)
    if env.checkpoints is not None:  # saved with what the write leaves: a rewind keeps a version changed since
        env.checkpoints.before_write(p, data)
    written, note = False, ""
    try:
        make_folders(p.parent, under=env.cwd)  # none through a link swapped in since the check, nor the working
        # directory gone meanwhile made again (safety/checked_open.py)
        names = _names(p) if was is not None else 1
        atomic_write_bytes(p, data, checked=True, expect=True, holding=was)
        if names > 1:
            others = "the other keeps" if names == 2 else f"the other {names - 1} keep"
            note = f", written as a new file: it had {names} names (hard links), {others} the old text"
        written = True
    except Swapped:
        raise  # said by the toolset: refused, not a failed write
    except Changed:
        return _changed(env, p, was, verb)
    except OSError as e:
        return ToolFailure(f"could not write {_shown(env, p)}: {e.strerror or 'write failed'}")
    finally:
        if env.checkpoints is not None:  # what it left; not made, what the last write left stands
            env.checkpoints.wrote(p, data if written else None)
    prev = env.read_state.get(p)
    mtime = p.stat().st_mtime_ns
    if prev is None:
        env.read_state.record(p, mtime, written=data)
    else:
        env.read_state.record(p, mtime, prev.partial, offset=prev.offset, limit=prev.limit, written=data)
    return note


def write_file_impl(env: ToolEnv, path: str, content: str) -> str:
    p = resolve_path(env.cwd, path)
    if refusal := env.permissions.outside_message(p):  # before anything about the file is looked at
        return NotRun(refusal)
    shown = _shown(env, p)
    if p.is_relative_to(Path(env.cwd).resolve()) and (gone := workdir_gone(env.cwd)) is not None:
        return ToolFailure(f"could not write {shown}: {gone.strerror}")  # said before anyone is asked to approve it
    if p.is_dir():
        return ToolFailure(f"{shown} is a directory; give a file path.")
    existed = p.exists()
    old, enc, raw = "", UTF8, None
    if existed:
        if env.read_state.get(p) is None and _binary(p) is None:  # a binary one: said by _guard_current
            return ToolFailure(f"refused: {shown} already exists and has not been read; read it first with read_file.")
        if refusal := _guard_current(env, p, "overwrite") or _read_only(env, p):
            return NotRun(refusal)
        if isinstance(current := _file_text(shown, p), ToolFailure):
            return current
        old, enc, raw = current
    # Over an existing file, the model's line breaks are written as the file's (a CRLF file stays CRLF).
    content, converted = with_ending(content, dominant(old)) if existed else (content, False)
    if isinstance(data := _encoded(shown, content, enc, old), ToolFailure):
        return data
    n = _count_lines(content)
    size = "1 line" if n == 1 else f"{n} lines"
    diff = _diff(old, content, shown)
    detail = f"{'overwrite' if existed else 'create'} {shown} ({size})\n{diff}"
    decision = env.permissions.decide("write_file", detail, path=p, named=path)
    if decision.refusal:
        return ToolFailure(decision.refusal)
    if isinstance(note := _commit(env, p, data, raw, "overwrite" if existed else "write"), ToolFailure):
        return note
    _notify(
        env, "write_file", {"path": str(p), "rel": shown, "created": not existed, "lines": n, "diff": diff,
                            **_instruction(decision)}
    )
    endings = _written_as({dominant(old)} if converted else set())
    return f"{'Overwrote' if existed else 'Created'} {shown} ({size}{_kept(enc)}{endings}{note})."


def edit_file_impl(
    env: ToolEnv, path: str, old_string: str, new_string: str, replace_all: bool = False
) -> str:
    if old_string == new_string:
        return ToolFailure("refused: old_string and new_string are identical; nothing to change.")
    if not old_string:
        return ToolFailure("refused: old_string is empty; use write_file to create or replace a whole file.")
    p = resolve_path(env.cwd, path)
    if refusal := env.permissions.outside_message(p):  # no "not found" oracle for outside paths
        return NotRun(refusal)
    shown = _shown(env, p)
    if not p.is_file():
        if p.is_dir():
            return ToolFailure(f"{shown} is a directory; give a file path.")
        # a FIFO, a socket, a device: there, but no text to edit ("not found … did you mean: it?")
        return ToolFailure(f"{shown} is not a regular file; it cannot be edited.") if p.exists() else _not_found(env, p)
    if refusal := _guard_current(env, p, "edit") or _read_only(env, p):
        return NotRun(refusal)
    if isinstance(current := _file_text(shown, p), ToolFailure):
        return current
    text, enc, raw = current
    matches = list(_old_pattern(old_string).finditer(text))
    form = ""  # old_string found in another Unicode form than the model's: what the result says
    if not matches and not old_string.isascii() and (matches := list(_either_form(old_string).finditer(text))):
        new_string, form = _in_form(new_string, matches[0].group())
    found = len(matches)
    if not found:
        return ToolFailure(
            f"old_string not found in {shown}; it must match the file exactly, whitespace included "
            "and without read_file's line-number prefix."
        )
    if found > 1 and not replace_all:
        return ToolFailure(
            f"old_string occurs {found} times in {shown}; include more surrounding lines to make it "
            "unique, or set replace_all=true to change every occurrence."
        )
    first = matches[0].start()
    new_text, endings = _replaced(text, matches if replace_all else matches[:1], new_string)
    if isinstance(data := _encoded(shown, new_text, enc, text), ToolFailure):
        return data
    diff = _diff(text, new_text, shown)
    decision = env.permissions.decide("edit_file", f"edit {shown}\n{diff}", path=p, named=path)
    if decision.refusal:
        return ToolFailure(decision.refusal)
    if isinstance(note := _commit(env, p, data, raw, "edit"), ToolFailure):
        return note
    count = found if replace_all else 1
    _notify(env, "edit_file", {"path": str(p), "rel": shown, "replacements": count, "diff": diff,
                               **_instruction(decision)})
    shown_lines = [ln.rstrip("\r\n") for ln in lines(new_text)] or [""]
    line = break_count(new_text, first) + 1  # the text before the first replacement is as it was
    lo = max(1, line - SNIPPET_CONTEXT)
    hi = min(len(shown_lines), line + break_count(new_string) + SNIPPET_CONTEXT, lo + SNIPPET_MAX_LINES - 1)
    snippet = _numbered((shown_text(ln[:MAX_LINE_CHARS]) for ln in shown_lines[lo - 1 : hi]), lo)
    what = f"{count} replacements" if count > 1 else "1 replacement"
    return f"Edited {shown} ({what}{_kept(enc)}{_written_as(endings)}{form}{note}); lines {lo}-{hi} now read:\n{snippet}"


def _holds_still(p: Path, was: bytes | None) -> bool:
    """Whether `p` still holds `was` (None: is absent), as far as a look can tell; the write checks
    again just before its rename (file_state.atomic_write_bytes)."""
    if was is None:
        return not os.path.lexists(p)
    try:
        return read_checked(p) == was
    except FileNotFoundError:  # removed meanwhile
        return False
    except Swapped:
        raise  # said by the toolset: refused
    except OSError:  # not to be read as checked: the write says what it is
        return True


def _changed(env: ToolEnv, p: Path, was: bytes | None, verb: str) -> ToolFailure:
    if was is None:
        return ToolFailure(f"refused: {_shown(env, p)} was made by another while this write waited (while the user "
                           "was asked about it, say); nothing was written. Read it before you overwrite it.")
    return ToolFailure(f"refused: {_shown(env, p)} was changed on disk after this {verb} was made from it (while the "
                       f"user was asked about it, say); nothing was written. Read it again before you {verb} it.")


def _names(p: Path) -> int:
    """How many names (hard links) the file at `p` has; 1 when it is gone (the write says so)."""
    try:
        return os.stat(p, follow_symlinks=False).st_nlink
    except OSError:
        return 1


def _replaced(text: str, matches: list[re.Match[str]], new: str) -> tuple[str, set[str]]:
    """`text` with each match replaced by `new`, its line breaks written as the file's lines there
    end (the first ending in the replaced text, else the one ending its line, else the file's
    dominant one), and the endings the model's breaks were converted to."""
    parts, at, endings = [], 0, set()
    for m in matches:
        nl = BREAK.search(m.group()) or BREAK.search(text, m.end())
        ending = nl.group() if nl else dominant(text)
        piece, changed = with_ending(new, ending)
        if changed:
            endings.add(ending)
        parts += [text[at:m.start()], piece]
        at = m.end()
    parts.append(text[at:])
    return "".join(parts), endings

