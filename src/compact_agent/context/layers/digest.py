"""Layer 4's digest: the short, deterministic text that stands for a collapsed run of rounds.

What was asked, which tools ran with which key arguments and how they ended, which files were read
or changed — made from the messages alone, so the same rounds always give the same bytes (the
commit stores it, and re-applying it keeps the cached prefix). The collapse adds the items of the
plan a folded `todo_write` set (`plan_note`): a compaction puts the plan back, and a fold left only
`todo_write(todos=[2 items])` of it. A caller may pass its own `Digest` to `ContextCollapse`; the
summary carries a collapsed digest through a compaction (`DIGEST_HEADER`).
"""

from __future__ import annotations

import dataclasses
import itertools
import json
from collections.abc import Callable, Sequence
from typing import Any

from pydantic_ai.messages import (
    ModelMessage,
    ModelRequest,
    ModelRequestPart,
    ModelResponsePart,
    RetryFeedbackPart,
    RetryPromptPart,
    SystemPromptPart,
    TextContent,
    TextPart,
    ToolCallPart,
    ToolReturnPart,
    UserPromptPart,
)

from ..plumbing.file_changes import copied_ids as copied_ids
from ..plumbing.markers import DIGEST_HEADER as DIGEST_HEADER
from ..plumbing.markers import OWN_TEXT, failed_result, is_attachment, tool_mark, typed_part
from ..plumbing.markers import RESTORED as RESTORED
from ..plumbing.media_size import document_name, is_document
from ..plumbing.result_text import result_lines

Digest = Callable[[list[ModelMessage]], str]


def is_digest(part: Any) -> bool:
    return isinstance(part, UserPromptPart) and isinstance(part.content, str) and part.content.startswith(DIGEST_HEADER)


# -- the default digest --------------------------------------------------------------------------
def shows_whole(text: str, value: str) -> bool:
    """Whether a digest's `text` shows `value` whole as a step's argument, as `_key_args` writes one
    short enough not to be clipped (`path="src/app.py"`)."""
    return json.dumps(value, ensure_ascii=False) in text


def _clip(text: str, n: int) -> str:
    text = " ".join(text.split())
    return text if len(text) <= n else text[: n - 1] + "…"


def _clip_arg(text: str, n: int) -> str:
    """An argument shortened to `n` characters. A path (one word with a `/`) loses its middle, so
    the file name that tells steps apart stays: `/home/me/…/tests/test_parser.py`."""
    if len(text) <= n or "/" not in text or any(c.isspace() for c in text):
        return _clip(text, n)
    head = min(text.find("/", 1) + 1 or 1, n // 4)  # through the first directory, at most a quarter
    return text[:head] + "…" + text[len(text) - (n - head - 1):]


def _prompt_str(part: UserPromptPart) -> str:
    if isinstance(part.content, str):
        return part.content
    out: list[str] = []
    for x in part.content:
        if isinstance(x, str | TextContent):
            out.append(x if isinstance(x, str) else x.content)
        else:
            media = str(getattr(x, "media_type", "") or "")
            out.append("[image]" if media.startswith("image/") else f"[a document left out: {document_name(x, size=False)}]"
                       if is_document(x) else f"[{getattr(x, 'kind', 'file')}]")
    return " ".join(out)


def retry_text(part: RetryPromptPart | RetryFeedbackPart) -> str:
    """What a retry said, as written: a `ModelRetry`'s message, or the validation errors as JSON."""
    return part.content if isinstance(part.content, str) else json.dumps(part.content, default=str)


def feedback(part: object) -> RetryPromptPart | RetryFeedbackPart | None:
    """`part` when it is pydantic-ai's feedback on an answer it could not use (an output validator's
    `ModelRetry`, output that failed validation), bound to no tool call: a `RetryFeedbackPart`, or the
    tool-less `RetryPromptPart` older histories hold. Else None."""
    if isinstance(part, RetryFeedbackPart) or (isinstance(part, RetryPromptPart) and not part.tool_name):
        return part
    return None


BREAK = "↵"
"""Where a text argument spanning lines has a line break, in a step (`_str_arg`)."""


def _str_arg(v: str) -> str:
    """A text argument as a step shows it: its first 80 characters, each line's spaces closed up and
    each line break shown (`BREAK`); past 200, by its size. Flattened into one line, a file's content
    read as other code (`def div(a, b): return a / b`)."""
    lines = v.count("\n") + (not v.endswith("\n"))
    if len(v) > 200:
        return f"({len(v)} chars{f', {lines} lines' if lines > 1 else ''})"
    shown = BREAK.join(" ".join(line.split()) for line in v.split("\n")) if "\n" in v else v
    return json.dumps(_clip_arg(shown, 80) if shown == v else _clip(shown, 80), ensure_ascii=False)


def _key_args(args: dict[str, Any]) -> str:
    shown = []
    for k, v in list(args.items())[:4]:
        if isinstance(v, str):
            shown.append(f"{k}={_str_arg(v)}")
        elif isinstance(v, bool | int | float) or v is None:
            shown.append(f"{k}={json.dumps(v)}")
        elif isinstance(v, list | tuple):  # no angle brackets: a record escapes them (`&lt;`)
            shown.append(f"{k}=[{len(v)} item{'' if len(v) == 1 else 's'}]")
        else:
            shown.append(f"{k}={{…}}" if isinstance(v, dict) else f"{k}=({type(v).__name__})")
    return ", ".join(shown)


USER_SAID = "user_said"
"""The key under a tool result's `metadata["compact_agent"]["tool"]` that holds the words the user typed
when they declined the call (an approval's "no, do this instead"): theirs, kept as a message they
typed is (`user_said`). `DECLINED` (True) says the user declined the call, words or not."""
DECLINED = "declined"


def user_said(part: object) -> str | None:
    """The words the user typed on declining the call tool result `part` answers, where its toolset
    marked them (`USER_SAID`), else None."""
    words = tool_mark(part).get(USER_SAID) if isinstance(part, ToolReturnPart) else None
    return words if isinstance(words, str) and words.strip() else None


def typed_at_refusal(call: ToolCallPart | None, part: ToolReturnPart, words: str) -> str:
    """`words` (`user_said`) as the user's messages list them: after which call they were typed."""
    args = call.args_as_dict() if call is not None else {}
    shown = _key_args(dict(list(args.items())[:1])) + (", …" if len(args) > 1 else "")
    return f"[typed on declining {_clip(part.tool_name, 80)}({shown}); do this instead:] {words}"


def refusals(messages: Sequence[ModelMessage]) -> dict[str, str]:
    """What the user typed on declining calls in `messages` (`typed_at_refusal`), by the result's call id."""
    calls = {p.tool_call_id: p for m in messages for p in m.parts if isinstance(p, ToolCallPart)}
    return {p.tool_call_id: typed_at_refusal(calls.get(p.tool_call_id), p, words) for m in messages
            for p in m.parts if isinstance(p, ToolReturnPart) and (words := user_said(p)) is not None}


def _found(result: ToolReturnPart) -> str | None:
    """What a search found, where its toolset counted it (`["tool"]["matches"]`): "no matches", "3 matches"."""
    n = tool_mark(result).get("matches")
    if not isinstance(n, int) or isinstance(n, bool) or n < 0:
        return None
    return "no matches" if n == 0 else f"{n} match{'' if n == 1 else 'es'}"


def _outcome(result: ToolReturnPart | RetryPromptPart | None) -> str:
    if result is None:
        return "no result"
    if isinstance(result, RetryPromptPart):
        return "error: " + _clip(retry_text(result), 120)
    text = result.content if isinstance(result.content, str) else result.model_response_str(wrap_if_error=False)
    if tool_mark(result).get(DECLINED) or user_said(result) is not None:
        return "refused by the user"  # their words, if any, are a step of their own (`refusals`)
    if failed_result(result):  # also a refusal or failure a toolset reported as a result
        outcome = result.outcome if result.outcome != "success" else "failed"
        return f"{outcome}: " + _clip(text.strip().splitlines()[0] if text.strip() else "", 120)
    if result.files:
        return f"ok ({len(result.files)} file{'s' if len(result.files) > 1 else ''})"
    if (found := _found(result)) is not None:
        return found
    # The result's own lines, not its preview's or a placeholder's ("[Old tool result content cleared]"):
    # the same round says the same whatever the view showed of it.
    lines = result_lines(result)
    if lines is None:
        return "ok (output cleared or shortened)"
    return f"ok ({lines} line{'' if lines == 1 else 's'})" if lines else "ok (no output)"


def _fit(steps: list[str], room: int) -> list[str]:
    """Keep every ask of the user, then steps from both ends (the start and the latest state)."""
    asks = [i for i, x in enumerate(steps) if x.startswith("- User:")]
    cost = sum(len(steps[i]) + 31 for i in asks) + 30  # each ask may bring a gap line
    while cost > room and len(asks) > 2:  # the first ask and the newest ones matter most
        cost -= len(steps[asks.pop(1)]) + 31
    keep = set(asks)
    used = cost
    lo, hi, front = 0, len(steps) - 1, True
    while lo <= hi:
        i = lo if front else hi
        if i not in keep:
            if used + len(steps[i]) + 1 > room:
                break
            used += len(steps[i]) + 1
            keep.add(i)
        lo, hi = (lo + 1, hi) if front else (lo, hi - 1)
        front = not front
    out: list[str] = []
    gap = 0
    for i, x in enumerate(steps):
        if i in keep:
            if gap:
                out.append(f"- … {gap} more steps …")
                gap = 0
            out.append(x)
        else:
            gap += 1
    if gap:
        out.append(f"- … {gap} more steps …")
    return out


def ask_text(part: object, m: object = None) -> str | None:
    """The user's ask `part` (of request `m`) holds, or None: a digest, a reminder and what the program
    put beside the user's words (the plan, hook output, restored after each compaction as it then
    stands) are none; a run's own prompt is one however it begins (`markers.typed_part`)."""
    if not isinstance(part, UserPromptPart):
        return None
    if m is not None and typed_part(m, part):
        return _prompt_str(part)
    if is_digest(part):
        return None
    text = _prompt_str(part)
    return None if text.lstrip().startswith(("<system-reminder>", OWN_TEXT)) else text


def model_steps(messages: Sequence[ModelMessage]) -> list[ModelMessage]:
    """`messages` without what a compaction wrote in again (`copied_ids`, calls and results): what a
    record lists as done since the record or summary before it. A result kept is a copy of a call
    that one covered, a file restored the program read: listed again, each compaction told the model
    it had written a file once more, and read it, at a later point each time. A message left with
    no part goes."""
    copied = copied_ids(messages)
    out: list[ModelMessage] = []
    for m in messages:
        parts = [p for p in m.parts if not (isinstance(p, ToolCallPart | ToolReturnPart) and p.tool_call_id in copied)]
        if len(parts) == len(m.parts):
            out.append(m)
        elif parts:
            out.append(dataclasses.replace(m, parts=parts))  # type: ignore[arg-type]
    return out


def asks(messages: list[ModelMessage]) -> list[str]:
    """What the user asked in `messages` (`ask_text`), and typed on declining a call (`refusals`)."""
    said = refusals(messages)
    return [t for m in messages if isinstance(m, ModelRequest) for p in m.parts
            if (t := ask_text(p, m) if not isinstance(p, ToolReturnPart) else said.get(p.tool_call_id)) is not None]


PLAN_TOOL = "todo_write"
"""The agent's plan tool (agent/tools/todos.py): each call sends the whole list of items."""
PLAN_NOTE = "The plan, as the latest todo_write in the steps above left it (update it with todo_write as you go):"
_PLAN_MARKS = {"pending": "[ ]", "in_progress": "[~]", "done": "[x]"}  # as todos.render_plain writes them


def _plan_items(call: ToolCallPart) -> list[str] | None:
    """The items a `todo_write` call set, one line each, or None for a call the tool refused (the
    plan was left as it was): `todos` not a list of {content, status} items."""
    todos = call.args_as_dict().get("todos")
    if not isinstance(todos, list):
        return None
    lines = []
    for t in todos:
        if not (isinstance(t, dict) and isinstance(t.get("content"), str)
                and t.get("status", "pending") in _PLAN_MARKS):
            return None
        if t["content"].strip():  # the tool drops an empty item
            lines.append(f"{_PLAN_MARKS[t.get('status', 'pending')]} {_clip(t['content'], 300)}")
    return lines


def _latest_plan(messages: Sequence[ModelMessage]) -> str | None:
    """The plan the newest `todo_write` in `messages` set, as `plan_note` writes it ("" for a plan
    cleared), or the one an earlier digest there carries, whichever is newer; None when neither."""
    plan: str | None = None
    for m in messages:
        for p in m.parts:
            if isinstance(p, ToolCallPart) and p.tool_name == PLAN_TOOL and (items := _plan_items(p)) is not None:
                plan = "\n".join([PLAN_NOTE, *items]) if items else ""
            elif isinstance(p, UserPromptPart) and is_digest(p) and f"\n{PLAN_NOTE}\n" in (text := str(p.content)):
                plan = PLAN_NOTE + text.rsplit(f"\n{PLAN_NOTE}", 1)[1]
    return plan


def plan_note(folded: Sequence[ModelMessage], after: Sequence[ModelMessage]) -> str | None:
    """The plan a digest of `folded` carries verbatim, after its steps: the latest one, when no
    `todo_write` in the messages `after` them (which stay) replaces it. Folded with its round, the plan
    the model is following went from every request until the next compaction put it back."""
    if not folded or _latest_plan(after) is not None or not (plan := _latest_plan(folded)):
        return None
    leading = itertools.takewhile(lambda p: isinstance(p, SystemPromptPart) or is_digest(p), folded[0].parts)
    # A digest that opens the range stays as it is (the new one joins it), plan and all.
    return None if any(isinstance(p, UserPromptPart) and str(p.content).endswith("\n" + plan) for p in leading) else plan


def default_digest(messages: list[ModelMessage], max_chars: int = 6_000, *, framed: bool = True,
                   user_chars: int = 300) -> str:
    """Deterministic digest of `messages`: asks, tool calls with key args and outcomes, files.

    `framed` (the collapse layer's digest, which stands alone in the history) opens with
    `DIGEST_HEADER`, the files changed and "What happened, in order:". A compaction record
    (`summary.record_of`) asks for the steps alone: its message already says where the full
    messages are and lists the files changed, and the record is carried, cached, on every later
    request, so each framing line would be paid again and again. A user's message shows its first
    `user_chars` characters: a record's compaction message carries the user's messages verbatim
    beside it, so there the step only places the message among the others (`RECORD_USER_CHARS`).
    A file the user attached (`markers.is_attachment`) shows as theirs: listed as a read_file call,
    it told the model it had read a file it never asked for."""
    results: dict[str, ToolReturnPart | RetryPromptPart] = {}
    refused = refusals(messages)
    for m in messages:
        if isinstance(m, ModelRequest):
            for r in m.parts:
                if isinstance(r, ToolReturnPart) or (isinstance(r, RetryPromptPart) and r.tool_name):
                    results[r.tool_call_id] = r
    steps: list[str] = []
    read: dict[str, None] = {}
    changed: dict[str, None] = {}
    for m in messages:
        p: ModelRequestPart | ModelResponsePart
        for p in m.parts:
            if isinstance(p, UserPromptPart):
                if (text := ask_text(p, m)) is not None:
                    steps.append(f"- User: {_clip(text, user_chars)}")
            elif (said := feedback(p)) is not None:
                steps.append(f"- Retry feedback: {_clip(retry_text(said), 160)}")
            elif isinstance(p, TextPart) and p.content.strip():
                steps.append(f"- Assistant: {_clip(p.content, 240)}")
            elif isinstance(p, ToolCallPart):
                args = p.args_as_dict()
                name = _clip(p.tool_name, 80)  # the model's: a line break in it would start a step ("- User: …")
                # A file the user attached to their message (`@path`): the agent's read, not the model's.
                call = "User attached: " + _key_args(args) if is_attachment(m) else f"{name}({_key_args(args)})"
                result = results.get(p.tool_call_id)
                steps.append(f"- {call} -> {_outcome(result)}")
                if (words := refused.get(p.tool_call_id)) is not None:  # the user's, kept as their messages are
                    steps.append(f"- User: {_clip(words, user_chars)}")
                path = args.get("path", args.get("file_path"))
                if isinstance(path, str) and not ("write" in p.tool_name or "edit" in p.tool_name):
                    read[path] = None
                elif isinstance(path, str) and result is not None and not failed_result(result):
                    changed[path] = None  # a write refused or failed changed nothing
    head = [f"{DIGEST_HEADER} {len(messages)} earlier messages were collapsed to save context; the "
            f"full messages are kept in the session log."] if framed else []
    head += [f"Files changed: {_clip(', '.join(changed), 600)}"] if changed and framed else []
    order = "What happened, in order:"
    room = max_chars - sum(len(h) + 1 for h in head) - (len(order) + 1 if framed else 0)
    needed = sum(len(x) + 1 for x in steps)
    if read and needed > room:  # some steps will be left out: name every path read
        head.append(f"Paths read or searched: {_clip(', '.join(read), 600)}")
        room -= len(head[-1]) + 1
    if framed:
        head.append(order)
    if needed > room:
        steps = _fit(steps, room)
    return "\n".join([*head, *steps])[:max_chars]
