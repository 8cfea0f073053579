"""The files a conversation's tool calls changed, read from the calls themselves: what every part of
the library that asks it shares (a compaction's ledger, `compaction/ledger.py`; the reads a layer-1
preview may send the model back to, `layers/budget.py`; what forgetting costs, `decisions/reuse.py`).

The tools that write, edit or patch a file, ours and other harnesses', and how a call names its
path; a call whose result says it did not happen changed nothing.
"""

from __future__ import annotations

import json
import re
from collections.abc import Collection, Sequence
from typing import Any

from pydantic_ai.messages import (
    ModelMessage,
    ModelRequest,
    ModelResponse,
    RetryPromptPart,
    ToolCallPart,
    ToolReturnPart,
)

from .markers import RESTORED, failed_result, is_kept_result, ours, tool_mark

MARK = "compact_agent"
#: The tools that write, edit or patch files (in lower case), ours and other harnesses'. Each of the
#: terminal agent's own tools is in one of these lists or the ledger's READ_TOOLS, or deliberately in
#: none: a test (tests/agent/test_tool_lists.py) holds the agent's tools to them through
#: `compaction/ledger.py`, the library importing no agent.
WRITE_TOOLS = frozenset({"write_file", "write", "create_file", "notebookedit"})
EDIT_TOOLS = frozenset({"edit_file", "edit", "multiedit", "str_replace_editor", "str_replace_based_edit_tool"})
PATCH_TOOLS = frozenset({"apply_patch"})
PATH_KEYS = ("file_path", "path", "notebook_path", "filename")
_PATCH = re.compile(r"^\*\*\* (Add|Update|Delete) File: (.+)$", re.M)
_PATCH_ACTION = {"Add": "created", "Update": "edited", "Delete": "deleted"}


def copied_ids(messages: Sequence[ModelMessage]) -> set[str]:
    """The call ids of what a compaction wrote in again after its summary: the files it restored
    (their results marked `RESTORED`) and the results in use it kept (the calls of the responses
    marked `KEPT`: its request half may be joined with the message after it, which the mark then
    covers too)."""
    return {p.tool_call_id for m in messages for p in m.parts
            if (isinstance(p, ToolReturnPart) and ours(p).get("synthetic") == RESTORED)
            or (isinstance(p, ToolCallPart) and isinstance(m, ModelResponse) and is_kept_result(m))}


Ledger = dict[str, list[str]]
"""path -> what happened to it, oldest first (e.g. ["created", "edited"]); with `attempts`, also
what was tried and did not happen ("edit failed")."""

FAILED = " failed"
"""The end of an action that did not happen: a write or edit that failed (or that was refused)."""
REFUSED = " refused by the user"
"""The end of an action the user refused at the approval question (its result's `["tool"]["declined"]`,
which a toolset puts there), said so, not as "edit failed": it did not happen either (`undone`)."""


def undone(action: str) -> bool:
    """Whether a ledger's `action` is one that did not happen (`FAILED`, `REFUSED`)."""
    return action.endswith((FAILED, REFUSED))


def call_args(part: ToolCallPart) -> dict[str, Any] | str:
    """A call's arguments as a dict, or the raw text when they are not a JSON object."""
    if isinstance(part.args, dict):
        return part.args
    try:
        parsed = json.loads(part.args or "{}")
    except (ValueError, RecursionError):  # not JSON, or nested past the parser's depth (a model's reply)
        return part.args or ""
    return parsed if isinstance(parsed, dict) else str(parsed)


def path_of(args: dict[str, Any] | str) -> str | None:
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


def failed_calls(messages: Sequence[ModelMessage]) -> set[str]:
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


def _declined(messages: Sequence[ModelMessage]) -> set[str]:
    """Ids of the calls the user refused (`REFUSED`)."""
    return {p.tool_call_id for m in messages if isinstance(m, ModelRequest) for p in m.parts
            if isinstance(p, ToolReturnPart) and tool_mark(p).get("declined") is True}


def changed_files(messages: Sequence[ModelMessage], *, carried: bool = True, attempts: bool = False,
                  writers: Collection[str] = ()) -> Ledger:
    """The ledger of `messages`: earlier ledgers carried in summary metadata (unless `carried` is
    False: then only what the tool calls in `messages` changed), then the tool calls. A call whose
    result says it did not happen changed nothing: left out, or with `attempts` kept as
    "write failed" / "edit failed" (what a compaction message lists apart, and carries on).
    `writers`: the caller's own tools that write the file their path argument names (lower case:
    `CompactionSettings.file_tools`), listed as the write tools are. A call a compaction kept with its
    result (`copied_ids`) is in the ledger it carries already: counted again, a write kept from
    before an edit was listed after it ("written, edited, written"). Without `carried` it counts: the
    model is still using what it returned, and the restorer brings that file back (keep.py `restorable`)."""
    ledger: Ledger = {}
    failed, declined = failed_calls(messages), _declined(messages)
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
                            if isinstance(a, str) and (attempts or not undone(a)):
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
            miss = REFUSED if p.tool_call_id in declined else FAILED
            if (name in WRITE_TOOLS or name in writers) and (path := path_of(args)):
                _add(ledger, path, "written" if done else "write" + miss)
            elif name in EDIT_TOOLS and (path := path_of(args)):
                command = args.get("command") if isinstance(args, dict) else None
                _add(ledger, path, ("created" if command == "create" else "edited") if done else "edit" + miss)
            elif name in PATCH_TOOLS:
                text = " ".join(v for v in args.values() if isinstance(v, str)) if isinstance(args, dict) else args
                for kind, path in _PATCH.findall(text):
                    _add(ledger, path.strip(), _PATCH_ACTION[kind] if done else "patch" + miss)
    return ledger
