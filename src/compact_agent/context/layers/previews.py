"""What layer 1 shows in place of a long text: a result's preview, a tool call's cut arguments.

Pure functions of the text (and where its spilled copy is), so a preview, once chosen, is the same
bytes on every request. `budget.py` decides which results and arguments get one. How many lines
the result had that a preview or a placeholder stands for is read back by `plumbing/result_text.py`
(`result_lines`), from the note this module writes.
"""

from __future__ import annotations

import hashlib
import re
import shlex
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from pydantic_ai.messages import ToolCallPart

from ..plumbing.result_text import PREVIEWED_BY as PREVIEWED_BY
from ..plumbing.result_text import line_count
from ..plumbing.result_text import measured_text as measured_text
from ..plumbing.result_text import result_lines as result_lines
from ..plumbing.result_text import text_of as text_of
from . import rereads

_UNSAFE = re.compile(r"[^A-Za-z0-9_.-]")


def spill_name(tool_call_id: str) -> str:
    """A file name for the id that cannot escape the spill dir; a hash keeps rewritten ids distinct."""
    safe = _UNSAFE.sub("_", tool_call_id).lstrip(".")[:120]
    if safe != tool_call_id or not safe:
        safe = f"{safe or 'call'}-{hashlib.sha256(tool_call_id.encode()).hexdigest()[:10]}"
    return f"{safe}.txt"


LONG_LINE = 2_000
"""Past this many characters a line is cut by a line-by-line read (the agent's read_file, and most
agents' file readers): a preview of such text points to grep or a command instead."""

NEXT_BYTES = 4_000
"""What the command in a long-line preview's note shows of the rest at a time."""


def longest_line(text: str) -> int:
    return max(map(len, text.split("\n")))


#: The share of the head (and of the tail) a preview gives up to end (and begin) at a line break.
LINE_SLACK = 4


def _whole_lines(head: str, tail: str) -> tuple[str, str]:
    """`head` up to its last line break and `tail` from its first, when that gives up no more than
    a quarter of either: the model reads whole lines, not a line's last few characters."""
    cut = head.rfind("\n")
    if cut >= 0 and len(head) - cut - 1 <= len(head) // LINE_SLACK:
        head = head[:cut + 1]
    start = tail.find("\n")
    if 0 <= start < len(tail) // LINE_SLACK:
        tail = tail[start + 1:]
    return head, tail


Tools = Mapping[str, frozenset[str]]
"""The agent's tools, as a request lists them: each name with the names of its parameters."""

OWN_TOOLS: Tools = {"read_file": frozenset({"path", "offset", "limit"}), "grep": frozenset({"pattern", "path", "glob"}),
                    "bash": frozenset({"command", "timeout"})}
"""This project's agent's tools (agent/tools/toolset.py) that a preview's note names."""


def how_to_read(path: Path, head: str, text: str, tools: Tools, tail: str | None = None,
                room: int | None = None) -> str:
    """How the model can read the rest of the text saved at `path`, naming only tools it has: a
    library user's agent may have no `read_file`, `grep` or shell, and a note naming them sent
    the model after tools it could not call. Without them, its file tools, unnamed. With the
    preview's `tail` and `room`, the characters one result may take, a `read_file` call names the
    first line left out and as many lines as fit (rereads.py)."""
    read = tools.get("read_file")
    if longest_line(text) <= LONG_LINE:
        if read is not None and {"path", "offset", "limit"} <= read:
            if room is not None and tail is not None and (
                    advice := rereads.from_copy(path, text, len(head), len(tail), room)) is not None:
                return advice
            return f'Read the rest with read_file(path="{path}", offset=<first line>, limit=<number of lines>)'
        return "Read the rest from that file with read_file" if read is not None else \
            "The rest can be read from that file with your file tools"
    # A line-by-line read would cut them: search, or read on by bytes from the end of the head.
    # The file is the text as UTF-8 (numbered lines without their numbers: rereads.copy_view) and
    # `tail -c` counts bytes: one past the UTF-8 length of what the head shows of it is where the
    # rest starts, whatever its characters.
    after = len(rereads.copy_head(text, len(head)).encode("utf-8", "surrogatepass")) + 1
    ways = [way for have, way in (
        ("grep" in tools, "grep, which shows the text around a match"),
        ("bash" in tools, f"`tail -c +{after} {shlex.quote(str(path))} | head -c {NEXT_BYTES}` for the next "
                          f"{NEXT_BYTES:,} bytes")) if have]
    too_long = "for read_file" if read is not None else "to read by line"
    if ways:
        return f"Read the rest with {', or '.join(ways)} (its lines are too long {too_long})"
    return (f"The rest can be read from that file with your file tools: search it, or read it by bytes from byte "
            f"{after:,} on (its lines are too long {too_long})")


def build_preview(text: str, preview_chars: int, path: Path | None, kind: str = "output",
                  tools: Tools = OWN_TOOLS, *, room: int | None = None, source: str | None = None) -> str:
    """Head and tail of `text` and one line telling the model where the rest is (or that it is gone).
    `kind` names what it is: a tool's output, or the input given with a user's message; `tools` the
    agent's, which the line names where they can read the rest; `room` the characters one result
    may take (a read the line proposes fits it); `source` the file a read's result can be read
    again from by lines (rereads.py), which the line then names instead of `path`."""
    head_n = max(0, preview_chars // 2)
    tail_n = max(0, preview_chars - head_n)
    head, tail = _whole_lines(text[:head_n], text[len(text) - tail_n :] if tail_n else "")
    omitted = len(text) - len(head) - len(tail)
    lines = line_count(text)
    size = f"{len(text):,} characters, {lines:,} line{'' if lines == 1 else 's'}"
    shown = f"[{kind.capitalize()} too large for the context ({size}); showing the first {len(head):,} and last " \
            f"{len(tail):,} characters."
    again = None if source is None or room is None else rereads.from_source(text, len(head), len(tail), source, room)
    if again is not None:
        note = f"{shown} {again}.]"
    elif path is not None:
        note = f"{shown} Full {kind} saved to {path} . {how_to_read(path, head, text, tools, tail, room)}.]"
    else:
        note = (f"{shown} The full {kind} was not saved and cannot be read back; "
                f"re-run the tool with narrower arguments if you need the rest.]")
    return f"{head}\n\n[... {omitted:,} characters omitted ...]\n\n{tail}\n\n{note}"


_OMITTED = re.compile(r"\n\[\.\.\. ([\d,]+) characters of this argument omitted from the context; the call ran "
                      r"with the full text \.\.\.\]\n")


def cut_value(v: str, keep: int) -> str:
    """`v` cut to its first and last `keep // 2` characters with a note of how many were left out;
    a value cut before is cut again from its own head and tail, the count kept true."""
    found = _OMITTED.search(v)
    if found is None:
        head, tail = v[: keep // 2], v[len(v) - keep // 2:]
        omitted = len(v) - len(head) - len(tail)
    else:
        old_head, old_tail = v[:found.start()], v[found.end():]
        head, tail = old_head[: keep // 2], old_tail[max(0, len(old_tail) - keep // 2):]
        omitted = int(found.group(1).replace(",", "")) + len(old_head) - len(head) + len(old_tail) - len(tail)
    return (f"{head}\n[... {omitted:,} characters of this argument omitted from the context; the call ran "
            f"with the full text ...]\n{tail}")


def cut_args(part: ToolCallPart, limit: int, keep: int) -> dict[str, Any] | None:
    """The call's arguments with every string longer than `limit` cut to its head and tail, or None
    when nothing is that long (or the arguments are not a JSON object)."""
    try:
        args = part.args_as_dict()
    except Exception:  # noqa: BLE001 - malformed arguments are shown as they are
        return None
    if not isinstance(args, dict):
        return None
    out: dict[str, Any] = {}
    cut = False
    for k, v in args.items():
        if isinstance(v, str) and len(v) > limit and len(short := cut_value(v, keep)) < len(v):
            out[k] = short
            cut = True
        else:
            out[k] = v
    return out if cut else None
