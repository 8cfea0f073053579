"""write_file and edit_file: the tools that change files.

Apart from reading (files.py) because they answer to more: an edit goes through the read-state
guard (file_state.py: the model must have seen the file as it is now), the permission check
(safety/permissions.py) and the checkpoint store (checkpoints.py), in that order, and is written
atomically in the file's own encoding. The toolset runs write/edit as async functions without
awaits, so parallel tool calls cannot interleave two edits of one file.
"""

from __future__ import annotations

import difflib
import logging
from pathlib import Path
from typing import Any

from ..safety.checked_open import Swapped, make_folders, read_checked
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
from .file_state import atomic_write_bytes
from .text_encoding import SNIFF_BYTES, UTF8, Encoding, decode, sniff
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
    return text.count("\n") + (1 if text and not text.endswith("\n") else 0)


def _guard_current(env: ToolEnv, p: Path, verb: str) -> str | None:
    shown = _shown(env, p)
    if env.read_state.get(p) is None:
        if env.read_state.was_summarised(p):  # read before, then compacted away
            return ToolFailure(f"File was read before the conversation was compacted, and that read is no longer in "
                               f"view: {shown}; read it again with read_file before you {verb} it.")
        return ToolFailure(f"File has not been read yet: {shown}; read it with read_file before you {verb} it.")
    if not env.read_state.is_current(p):
        return ToolFailure(f"File changed on disk since it was read: {shown}; read it again before you {verb} it.")
    return None


def _file_text(shown: str, p: Path) -> tuple[str, Encoding] | ToolFailure:
    """The whole text of an existing file and its encoding, decoded as read_file decodes it."""
    raw = read_checked(p)  # opened as the fence checked it (safety/checked_open.py)
    if (enc := sniff(raw[:SNIFF_BYTES])) is None:
        return ToolFailure(f"refused: {shown} is a binary file ({len(raw)} bytes); only text files are edited.")
    if (decoded := decode(raw, enc)) is None:
        return ToolFailure(f"refused: {shown} starts with a {enc.name} byte-order mark but is not {enc.name} text.")
    return decoded


def _encoded(shown: str, text: str, enc: Encoding) -> bytes | ToolFailure:
    """`text` in the file's own encoding (a user's UTF-16 or Latin-1 file is never rewritten as
    UTF-8), or why it cannot be: a character that encoding has no bytes for."""
    try:
        return enc.encode(text)
    except UnicodeEncodeError as e:
        ch, line = e.object[e.start], text.count("\n", 0, e.start) + 1
        return ToolFailure(
            f"refused: {shown} is {enc.name} text, which has no {ch!r} (U+{ord(ch):04X}, line {line}); "
            f"write only characters {enc.name} has (the file keeps its encoding)."
        )


def _kept(enc: Encoding) -> str:
    """What a write result says of an encoding kept that is not plain UTF-8."""
    return "" if enc == UTF8 else f", kept as {enc.label}"


def _commit(env: ToolEnv, p: Path, data: bytes) -> ToolFailure | None:
    """Checkpoint, write atomically, and remember the new mtime so the next edit needs no re-read.

    A failed write names the file the model asked for, not the temp file beside it."""
    if env.checkpoints is not None:  # saved with what the write leaves: a rewind keeps a version changed since
        env.checkpoints.before_write(p, data)
    written = False
    try:
        make_folders(p.parent)  # none through a link swapped in since the check (safety/checked_open.py)
        atomic_write_bytes(p, data, checked=True)
        written = True
    except Swapped:
        raise  # said by the toolset: refused, not a failed write
    except OSError as e:
        return ToolFailure(f"could not write {_shown(env, p)}: {e.strerror or 'write failed'}")
    finally:
        if env.checkpoints is not None:  # what it left; not made, what the last write left stands
            env.checkpoints.wrote(p, data if written else None)
    prev = env.read_state.get(p)
    mtime = p.stat().st_mtime_ns
    if prev is None:
        env.read_state.record(p, mtime)
    else:
        env.read_state.record(p, mtime, prev.partial, offset=prev.offset, limit=prev.limit)
    return None


def write_file_impl(env: ToolEnv, path: str, content: str) -> str:
    p = resolve_path(env.cwd, path)
    if refusal := env.permissions.outside_message(p):  # before anything about the file is looked at
        return NotRun(refusal)
    shown = _shown(env, p)
    if p.is_dir():
        return ToolFailure(f"{shown} is a directory; give a file path.")
    existed = p.exists()
    old, enc = "", UTF8
    if existed:
        if env.read_state.get(p) is None:
            return ToolFailure(f"refused: {shown} already exists and has not been read; read it first with read_file.")
        if refusal := _guard_current(env, p, "overwrite"):
            return NotRun(refusal)
        if isinstance(current := _file_text(shown, p), ToolFailure):
            return current
        old, enc = current
    if isinstance(data := _encoded(shown, content, enc), ToolFailure):
        return data
    n = _count_lines(content)
    size = "1 line" if n == 1 else f"{n} lines"
    diff = _diff(old, content, shown)
    detail = f"{'overwrite' if existed else 'create'} {shown} ({size})\n{diff}"
    decision = env.permissions.decide("write_file", detail, path=p, named=path)
    if decision.refusal:
        return ToolFailure(decision.refusal)
    if failed := _commit(env, p, data):
        return failed
    _notify(
        env, "write_file", {"path": str(p), "rel": shown, "created": not existed, "lines": n, "diff": diff,
                            **_instruction(decision)}
    )
    return f"{'Overwrote' if existed else 'Created'} {shown} ({size}{_kept(enc)})."


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
    if refusal := _guard_current(env, p, "edit"):
        return NotRun(refusal)
    if isinstance(current := _file_text(shown, p), ToolFailure):
        return current
    text, enc = current
    old, new = old_string, new_string
    found = text.count(old)
    if not found and "\r\n" in text and "\n" in old and "\r\n" not in old:
        # The model saw lines without their CR (read_file strips it); match the file's line endings.
        old, new = old.replace("\n", "\r\n"), new.replace("\n", "\r\n")
        found = text.count(old)
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
    first = text.index(old)
    new_text = text.replace(old, new) if replace_all else text.replace(old, new, 1)
    if isinstance(data := _encoded(shown, new_text, enc), ToolFailure):
        return data
    diff = _diff(text, new_text, shown)
    decision = env.permissions.decide("edit_file", f"edit {shown}\n{diff}", path=p, named=path)
    if decision.refusal:
        return ToolFailure(decision.refusal)
    if failed := _commit(env, p, data):
        return failed
    count = found if replace_all else 1
    _notify(env, "edit_file", {"path": str(p), "rel": shown, "replacements": count, "diff": diff,
                               **_instruction(decision)})
    lines = new_text.split("\n")
    if len(lines) > 1 and lines[-1] == "":  # the newline that ends the last line starts none
        lines.pop()
    line = new_text.count("\n", 0, first) + 1
    lo = max(1, line - SNIPPET_CONTEXT)
    hi = min(len(lines), line + new.count("\n") + SNIPPET_CONTEXT, lo + SNIPPET_MAX_LINES - 1)
    snippet = _numbered((shown_text(ln.rstrip("\r")[:MAX_LINE_CHARS]) for ln in lines[lo - 1 : hi]), lo)
    what = f"{count} replacements" if count > 1 else "1 replacement"
    return f"Edited {shown} ({what}{_kept(enc)}); lines {lo}-{hi} now read:\n{snippet}"
