"""Which run of a call made again a compaction keeps (keep.py `kept_results`).

The same tool with the same arguments is one call, run again. Of the runs since the first the model
is still using, the newest that tells what the call now returns stands for it: the test run after a
fix, not the `FAILED` one the model had cited. A run that did not happen (denied, retried,
interrupted; refused by the agent's permissions, which its toolset marks `"ran": false`) tells
nothing of that, nor does one killed before it finished (at the bash tool's timeout, or as the turn
was stopped: marked `"finished": false`), and it replaces no run the model was using. A failed one
(an error, a nonzero exit) replaces only a failure: a failing build run again replaces the failing
build before it. A failed call on a file (an edit refused as "File has not been read yet") is kept by
no one once a later call on the same file went through (`superseded_failures`): kept, it stood after
the record that showed the file read since, as if it were the model's newest step.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Collection, Sequence

from pydantic_ai.messages import (
    ModelMessage,
    ModelRequest,
    ModelResponse,
    RetryPromptPart,
    ToolCallPart,
    ToolReturnPart,
)

from ..plumbing.markers import failed_result, tool_mark
from . import ledger

Key = tuple[str, str]
Run = ToolReturnPart | RetryPromptPart
NOT_RUN = frozenset({"denied", "retried", "interrupted"})  # pydantic-ai's outcomes of a call that did not run


def run_key(call: ToolCallPart) -> Key:
    """What makes two calls runs of the same one: the tool and its arguments (as JSON, keys sorted)."""
    args = ledger.call_args(call)
    return call.tool_name, args if isinstance(args, str) else json.dumps(args, sort_keys=True, default=str)


def replaces(newer: Run, older: Run) -> bool:
    """Whether the result `newer` of a call tells what it returns in place of the older `older`: a
    run that succeeded does; one that did not run (a retry prompt, a denial: pydantic-ai's outcome,
    or a toolset's error mark saying `"ran": false`) or did not finish (`"finished": false`: killed
    at its timeout) never does; one that failed (markers.py `failed_result`: an error) only in place
    of a failure."""
    if not isinstance(newer, ToolReturnPart) or newer.outcome in NOT_RUN or not ran_through(newer):
        return False
    return not failed_result(newer) or isinstance(older, RetryPromptPart) or failed_result(older)


def ran_through(part: ToolReturnPart) -> bool:
    """False where a toolset marked the result as of a call that did not run (`["tool"]["ran"]`: a
    command its permissions refused) or did not finish (`["tool"]["finished"]`: a command killed at
    its timeout, or when the turn was stopped), which pydantic-ai's outcome does not say of a result
    returned as text. A timed-out build says nothing of the build; kept in place of the failing one
    the model was citing, it took the errors away."""
    mark = tool_mark(part)
    return mark.get("ran") is not False and mark.get("finished") is not False


def runs_in(messages: Sequence[ModelMessage]) -> dict[Key, list[Run]]:
    """The results `messages` hold of each call whose call they hold too, oldest first."""
    calls = {p.tool_call_id: p for m in messages if isinstance(m, ModelResponse)
             for p in m.parts if isinstance(p, ToolCallPart)}
    out: dict[Key, list[Run]] = {}
    for m in messages:
        for p in m.parts if isinstance(m, ModelRequest) else ():
            if isinstance(p, ToolReturnPart | RetryPromptPart) and (call := calls.get(p.tool_call_id or "")):
                out.setdefault(run_key(call), []).append(p)
    return out


def chosen(runs: Sequence[ToolReturnPart], hot: Callable[[str], bool], later: Sequence[Run] = ()) -> ToolReturnPart | None:
    """Which of one call's `runs` (its results, oldest first) to keep: none when the model uses none
    of them (`hot`), nor when one of the `later` runs (kept verbatim anyway) replaces it; else the
    first it uses, or the newest run since that `replaces` it. The run in use had given way to any
    newer one: a re-run denied or timed out left only its denial kept where the build errors the
    model was citing had been."""
    first = next((i for i, r in enumerate(runs) if hot(r.tool_call_id)), None)
    if first is None:
        return None
    kept: ToolReturnPart = runs[first]
    for r in runs[first + 1:]:
        if replaces(r, kept):
            kept = r
    return None if any(replaces(r, kept) for r in later) else kept


def file_of(call: ToolCallPart) -> str | None:
    """The one file `call` reads, writes or edits (a tool of `ledger`'s lists naming its path), or None."""
    if call.tool_name.lower() not in ledger.READ_TOOLS | ledger.WRITE_TOOLS | ledger.EDIT_TOOLS:
        return None
    args = ledger.call_args(call)
    path = next((args[k] for k in ledger.PATH_KEYS if isinstance(args, dict) and isinstance(args.get(k), str)), None)
    return path or None


def superseded_failures(messages: Sequence[ModelMessage], resolve: Callable[[str], object] = str) -> Collection[str]:
    """The call ids of the failed calls on a file (`file_of`: an edit refused, a read of a missing
    file) after which `messages` hold a call on the same file (named alike by `resolve`) that went
    through (ran, finished, no error): the failure says nothing of the file any more. An edit refused
    as "File has not been read yet", kept after a compaction, stood after the record showing the file
    read since. A path `resolve` raises for (a read of `loop/x.txt` under a link to itself) is named
    by its text (`ledger.named`): its failure failed every compaction after it."""
    calls = {p.tool_call_id: p for m in messages if isinstance(m, ModelResponse)
             for p in m.parts if isinstance(p, ToolCallPart)}
    failed: dict[object, list[str]] = {}
    out: set[str] = set()
    for m in messages:
        for p in m.parts if isinstance(m, ModelRequest) else ():
            if not isinstance(p, ToolReturnPart | RetryPromptPart) or (call := calls.get(p.tool_call_id or "")) is None:
                continue
            if (path := file_of(call)) is None:
                continue
            key = ledger.named(resolve, path)  # a path it cannot name is its text
            if isinstance(p, RetryPromptPart) or p.outcome in NOT_RUN or failed_result(p) or not ran_through(p):
                failed.setdefault(key, []).append(call.tool_call_id)
            else:
                out.update(failed.pop(key, ()))
    return out
