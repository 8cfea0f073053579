"""The file ledger: every file the agent created, edited or deleted, carried through compactions.

A summary written by a model may forget a file it touched; the ledger cannot. It is read from the
tool calls themselves (our `write_file`/`edit_file`, Claude Code's Write/Edit/MultiEdit/
NotebookEdit, Codex's `apply_patch`, editor tools) and from the ledger a previous compaction left
in its summary message's metadata, so it survives any number of compactions. The compaction
message lists it as plain paths with what happened to each, which costs a few tokens per file.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Collection, Sequence
from typing import Any

from pydantic_ai.messages import (
    ModelMessage,
    ModelRequest,
    ModelResponse,
    RetryPromptPart,
    ToolCallPart,
    ToolReturnPart,
)

from ..layers.digest import RESTORED, copied_ids
from ..plumbing.markers import failed_result, ours

__all__ = ["FAILED", "READ_TOOLS", "Ledger", "call_args", "changed_files", "read_files", "read_path", "reads",
           "render", "render_failed"]

MARK = "compact_agent"
#: The tools that write, edit or patch files (in lower case), ours and other harnesses'. Each of the
#: terminal agent's own tools is in one of these lists or READ_TOOLS, or deliberately in none: a test
#: (tests/agent/test_tool_lists.py) holds the agent's tools to them, the library importing no agent.
WRITE_TOOLS = frozenset({"write_file", "write", "create_file", "notebookedit"})
EDIT_TOOLS = frozenset({"edit_file", "edit", "multiedit", "str_replace_editor", "str_replace_based_edit_tool"})
PATCH_TOOLS = frozenset({"apply_patch"})
#: The tools that read a file (in lower case): ours, Claude Code's Read, editor tools' view. The ledger's
#: list of files read and the restorer's files already in view (restore.py) go by these alike.
READ_TOOLS = frozenset({"read_file", "read", "view"})
PATH_KEYS = ("file_path", "path", "notebook_path", "filename")
#: Arguments that make a read a slice of its file (ours and Claude Code's offset/limit, an editor's range).
SLICE_KEYS = ("offset", "limit", "view_range")
_PATCH = re.compile(r"^\*\*\* (Add|Update|Delete) File: (.+)$", re.M)
_PATCH_ACTION = {"Add": "created", "Update": "edited", "Delete": "deleted"}

Ledger = dict[str, list[str]]
"""path -> what happened to it, oldest first (e.g. ["created", "edited"]); with `attempts`, also
what was tried and did not happen ("edit failed")."""

FAILED = " failed"
"""The end of an action that did not happen: a write or edit that failed, or that the user refused."""


def call_args(part: ToolCallPart) -> dict[str, Any] | str:
    """A call's arguments as a dict, or the raw text when they are not a JSON object."""
    if isinstance(part.args, dict):
        return part.args
    try:
        parsed = json.loads(part.args or "{}")
    except (ValueError, RecursionError):  # not JSON, or nested past the parser's depth (a model's reply)
        return part.args or ""
    return parsed if isinstance(parsed, dict) else str(parsed)


def _path(args: dict[str, Any] | str) -> str | None:
    if not isinstance(args, dict):
        return None
    for k in PATH_KEYS:
        v = args.get(k)
        if isinstance(v, str) and v.strip():
            return v.strip()
    return None


def _add(ledger: Ledger, path: str, action: str) -> None:
    actions = ledger.setdefault(path, [])
    if not actions or actions[-1] != action:
        actions.append(action)


def _failed_calls(messages: Sequence[ModelMessage]) -> set[str]:
    """Ids of the calls whose result says they did not happen: pydantic-ai's `outcome` (failed,
    denied, interrupted, retried), a retry prompt, or our toolset's error mark (a refusal, an edit
    whose old text was not found, a path outside the project)."""
    failed: set[str] = set()
    for m in messages:
        if not isinstance(m, ModelRequest):
            continue
        for p in m.parts:
            if isinstance(p, RetryPromptPart) and p.tool_call_id:
                failed.add(p.tool_call_id)
            elif isinstance(p, ToolReturnPart) and failed_result(p):
                failed.add(p.tool_call_id)
    return failed


def changed_files(messages: Sequence[ModelMessage], *, carried: bool = True, attempts: bool = False,
                  writers: Collection[str] = ()) -> Ledger:
    """The ledger of `messages`: earlier ledgers carried in summary metadata (unless `carried` is
    False: then only what the tool calls in `messages` changed), then the tool calls. A call whose
    result says it did not happen changed nothing: left out, or with `attempts` kept as
    "write failed" / "edit failed" (what a compaction message lists apart, and carries on).
    `writers`: the caller's own tools that write the file their path argument names (lower case:
    `CompactionSettings.file_tools`), listed as the write tools are. A call a compaction kept with its
    result (`digest.copied_ids`) is in the ledger it carries already: counted again, a write kept from
    before an edit was listed after it ("written, edited, written"). Without `carried` it counts: the
    model is still using what it returned, and the restorer brings that file back (keep.py `restorable`)."""
    ledger: Ledger = {}
    failed = _failed_calls(messages)
    copies = copied_ids(messages) if carried else set()
    for m in messages:
        if isinstance(m, ModelRequest):
            if not carried:
                continue
            meta = m.metadata.get(MARK, {}) if isinstance(m.metadata, dict) else {}
            earlier = meta.get("files_changed") if isinstance(meta, dict) else None
            if isinstance(earlier, dict):
                for path, actions in earlier.items():
                    if isinstance(path, str) and isinstance(actions, list):
                        for a in actions:
                            if isinstance(a, str) and (attempts or not a.endswith(FAILED)):
                                _add(ledger, path, a)
            continue
        if not isinstance(m, ModelResponse):
            continue
        for p in m.parts:
            if not isinstance(p, ToolCallPart):
                continue
            if (p.tool_call_id in failed and not attempts) or p.tool_call_id in copies:
                continue
            name = p.tool_name.lower()
            args = call_args(p)
            done = p.tool_call_id not in failed
            if (name in WRITE_TOOLS or name in writers) and (path := _path(args)):
                _add(ledger, path, "written" if done else "write" + FAILED)
            elif name in EDIT_TOOLS and (path := _path(args)):
                command = args.get("command") if isinstance(args, dict) else None
                _add(ledger, path, ("created" if command == "create" else "edited") if done else "edit" + FAILED)
            elif name in PATCH_TOOLS:
                text = " ".join(v for v in args.values() if isinstance(v, str)) if isinstance(args, dict) else args
                for kind, path in _PATCH.findall(text):
                    _add(ledger, path.strip(), _PATCH_ACTION[kind] if done else "patch" + FAILED)
    return ledger


def read_path(call: ToolCallPart) -> str | None:
    """The path `call` reads, or None: not a read of a file (`READ_TOOLS`), or it names none."""
    return _path(call_args(call)) if call.tool_name.lower() in READ_TOOLS else None


def reads(messages: Sequence[ModelMessage], *, done: bool = False) -> list[tuple[ToolCallPart, str]]:
    """The calls in `messages` that read a file, each with the path it names, in order. `done`: only
    those whose result in `messages` does not say the read failed (a file not found, a path refused)."""
    failed = _failed_calls(messages) if done else set()
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
    file read whole here to read again. Not the files a compaction restored (`digest.RESTORED`): the
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
    kept = {(resolve(path), _slice(call, results)) for call, path in reads(after) if call.tool_call_id in returned}
    for call, path in reversed(reads(messages, done=True)):
        if call.tool_call_id in restored:
            continue
        if path not in out and not {(resolve(path), _WHOLE), (resolve(path), _slice(call, results))} & kept:
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


def render(ledger: Ledger) -> list[str]:
    """One line per file changed, in the order the files were first changed (what failed left out)."""
    lines = []
    for path, actions in ledger.items():
        done = [a for a in actions if not a.endswith(FAILED)]
        if done:
            lines.append(f"- {path} ({', '.join(done)})")
    return lines


def render_failed(ledger: Ledger) -> list[str]:
    """One line per file that a write or edit was tried on and never changed (it is as it was)."""
    return [f"- {path} ({', '.join(actions)})" for path, actions in ledger.items()
            if all(a.endswith(FAILED) for a in actions)]
