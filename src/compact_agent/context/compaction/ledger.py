"""The file ledger: every file the agent created, edited or deleted, carried through compactions.

A summary written by a model may forget a file it touched; the ledger cannot. It is read from the
tool calls themselves (our `write_file`/`edit_file`, Claude Code's Write/Edit/MultiEdit/
NotebookEdit, Codex's `apply_patch`, editor tools) and from the ledger a previous compaction left
in its summary message's metadata, so it survives any number of compactions. The compaction
message lists it as plain paths with what happened to each, which costs a few tokens per file.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Collection, Mapping, Sequence
from typing import TypeVar

from pydantic_ai.messages import ModelMessage, ModelRequest, ModelResponse, ToolCallPart, ToolReturnPart

from ..plumbing.file_changes import EDIT_TOOLS as EDIT_TOOLS
from ..plumbing.file_changes import FAILED as FAILED
from ..plumbing.file_changes import MARK as MARK
from ..plumbing.file_changes import PATCH_TOOLS as PATCH_TOOLS
from ..plumbing.file_changes import PATH_KEYS as PATH_KEYS
from ..plumbing.file_changes import WRITE_TOOLS as WRITE_TOOLS
from ..plumbing.file_changes import Ledger as Ledger
from ..plumbing.file_changes import call_args as call_args
from ..plumbing.file_changes import changed_files as changed_files
from ..plumbing.file_changes import failed_calls, path_of, undone
from ..plumbing.markers import RESTORED, failed_result, ours

__all__ = ["FAILED", "GONE", "READ_TOOLS", "Ledger", "call_args", "changed_files", "named", "read_files", "read_path",
           "reads", "render", "render_failed", "states_of"]

#: The tools that write, edit or patch files (`plumbing/file_changes.py`, where `changed_files` reads
#: them), and those that read one (in lower case): ours, Claude Code's Read, editor tools' view. Each
#: of the terminal agent's own tools is in one of these lists, or deliberately in none: a test
#: (tests/agent/test_tool_lists.py) holds the agent's tools to them, the library importing no agent.
#: The ledger's list of files read and the restorer's files already in view (restore.py) go by READ_TOOLS.
READ_TOOLS = frozenset({"read_file", "read", "view"})
#: Arguments that make a read a slice of its file (ours and Claude Code's offset/limit, an editor's range).
SLICE_KEYS = ("offset", "limit", "view_range")


Name = TypeVar("Name")


def named(resolve: Callable[[str], Name], path: str) -> Name | str:
    """What `resolve` (`Restorer.resolve`, the caller's callback) names `path` as, or, where it raised,
    the text `path` itself: a name that matches the same text only, never a path `resolve` named.
    Every call of the callback here goes through this. The path is text a model wrote, on a file system
    that changes under it: a link that loops (`ln -s loop loop`; Python 3.11's `Path.resolve` raises
    RuntimeError, the agent's OSError), a folder since replaced by such a link, a `~user` not known, a
    NUL in it (ValueError). Raised, it failed every later compaction of the session, the tool call
    that named it long answered with an error. A name only pairs calls on one file; a path that has
    none pairs with none named otherwise, and the compaction goes on. Any Exception is taken so: a
    callback's failure is no reason to stop a compaction, which at worst keeps a result another call
    on the file made stale, or lists a file kept in view as one to read again."""
    try:
        return resolve(path)
    except Exception:  # noqa: BLE001 - any failure of the caller's callback: see above
        return path


def read_path(call: ToolCallPart) -> str | None:
    """The path `call` reads, or None: not a read of a file (`READ_TOOLS`), or it names none."""
    return path_of(call_args(call)) if call.tool_name.lower() in READ_TOOLS else None


def reads(messages: Sequence[ModelMessage], *, done: bool = False) -> list[tuple[ToolCallPart, str]]:
    """The calls in `messages` that read a file, each with the path it names, in order. `done`: only
    those whose result in `messages` does not say the read failed (a file not found, a path refused)."""
    failed = failed_calls(messages) if done else set()
    return [(p, path) for m in messages if isinstance(m, ModelResponse) for p in m.parts
            if isinstance(p, ToolCallPart) and p.tool_call_id not in failed and (path := read_path(p))]


def read_files(messages: Sequence[ModelMessage], limit: int = 10, *, after: Sequence[ModelMessage] = (),
               sent_whole: Collection[str] | None = None, resolve: Callable[[str], object] = str) -> list[str]:
    """Paths the agent read, newest first (at most `limit`): a list the model can read again. Not a
    file whose every read here `after` (the messages kept verbatim after `messages`) holds as the model
    had it, named alike by `resolve` (`./a.py`, `a.py`): neither lost nor one to read again, as the list
    said of it. A read there counts where it returned (it did not fail), goes out as it is
    (`sent_whole`: the call ids of the results of `after` that no view layer's decision stands in
    for, microcompact's placeholder or a preview, where the caller knows them), and reads the whole
    file, or the same slice (offset, limit, range) as the read here: a slice leaves the rest of a
    file read whole here to read again. Not the files a compaction restored (`markers.RESTORED`): the
    program read those, and the files changed list them. Not a read that failed (its result says so: a
    file not found was listed as one to read again). What a read holds is what its result says (`_slice`)."""
    out: list[str] = []
    results = {p.tool_call_id: p for m in (*messages, *after) if isinstance(m, ModelRequest) for p in m.parts
               if isinstance(p, ToolReturnPart)}
    restored = {p.tool_call_id for m in messages for p in m.parts
                if isinstance(p, ToolReturnPart) and ours(p).get("synthetic") == RESTORED}
    returned = {p.tool_call_id for m in after if isinstance(m, ModelRequest) for p in m.parts
                if isinstance(p, ToolReturnPart) and not failed_result(p)
                and (sent_whole is None or p.tool_call_id in sent_whole)}
    kept = {(named(resolve, path), _slice(call, results)) for call, path in reads(after) if call.tool_call_id in returned}
    for call, path in reversed(reads(messages, done=True)):
        if call.tool_call_id in restored:
            continue
        if path not in out and not {(key := named(resolve, path), _WHOLE), (key, _slice(call, results))} & kept:
            out.append(path)
            if len(out) >= limit:
                break
    return out


_WHOLE = (None,) * len(SLICE_KEYS)


#: The line read_file's result starts with when it holds part of its file (agent/tools/files.py).
_LINES = re.compile(r"\[[^\n]*: lines (\d+)-(\d+) of \d+[;\]]")


def _slice(call: ToolCallPart, results: dict[str, ToolReturnPart]) -> tuple[object, ...]:
    """The part of its file `call` reads (`_WHOLE`: the whole file). Our read_file's result says it: its
    lines where it holds part (a read with no offset of a long file holds its first 2,000 only), else
    the whole file (`offset=1` too); other tools' reads go by their offset, limit and range."""
    result = results.get(call.tool_call_id)
    if call.tool_name == "read_file" and result is not None and isinstance(result.content, str):
        lines = _LINES.match(result.content)
        return ("lines", lines[1], lines[2]) if lines else _WHOLE
    args = call_args(call)
    return tuple(str(args.get(k)) if isinstance(args, dict) and args.get(k) is not None else None
                 for k in SLICE_KEYS)


#: What `Restorer.state` says of a file that is no longer there (the agent's own deletion says it already).
GONE = "deleted since"


def render(ledger: Ledger, states: Mapping[str, str] | None = None) -> list[str]:
    """One line per file changed, in the order the files were first changed (what failed left out),
    with what became of it since where `states` says (`Restorer.state`): `a.py (edited; deleted since)`.
    A file the model changed stays listed whatever happened to it; the list said `a.py (edited)` of a
    file the user had deleted or replaced by a folder since, which the restore then left out unsaid."""
    lines = []
    for path, actions in ledger.items():
        done = [a for a in actions if not undone(a)]
        now = (states or {}).get(path)
        if now == GONE and done and done[-1] == "deleted":
            now = None
        if done:
            lines.append(f"- {path} ({', '.join(done)}{f'; {now}' if now else ''})")
    return lines


def states_of(paths: Collection[str], state: Callable[[str], str | None] | None) -> dict[str, str]:
    """What `state` (`Restorer.state`) says of each of `paths`, where it says anything. A callback that
    raises says nothing: what became of a file is no reason to fail a compaction (as `named`)."""
    out: dict[str, str] = {}
    for path in paths:
        if state is None:
            break
        try:
            if now := state(path):
                out[path] = now
        except Exception:  # noqa: BLE001 - any failure of the caller's callback: see above
            continue
    return out


def render_failed(ledger: Ledger) -> list[str]:
    """One line per file that a write or edit was tried on and never changed (it is as it was)."""
    return [f"- {path} ({', '.join(actions)})" for path, actions in ledger.items()
            if all(undone(a) for a in actions)]
