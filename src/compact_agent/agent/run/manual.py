"""`/compact` as the session runs it: a full compaction, or a partial one around a message
(`--from N` / `--up-to N`), each optionally previewed (`--preview`) before it is committed.

The library computes a compaction before it commits it (the new history, its summary, the archive
copy of the transcript); `confirm` sees it between the two. Declined — or blocked by a PreCompact
hook — nothing is rewritten, and the archive copy a declined preview made is removed again: the
session file still holds the whole transcript.
"""

from __future__ import annotations

import functools
from collections.abc import Awaitable, Callable
from typing import Protocol

from pydantic_ai.messages import ModelMessage, UserPromptPart
from pydantic_ai.models import Model

from ... import secrets
from ...context import CompactionBlocked, CompactionResult, Event, NotSmaller, SharedPrefixSummarizer
from ...context.compaction.summary import RECORD_TAG
from ...context.handlers import add_hook_time, ms_since
from ...context.plumbing import tokens
from ...context.plumbing.markers import ours
from ...context.shaping import preview, tentative
from ...context.wiring import SummaryInputs
from .extensions import SessionExtensions
from .first_request import prepare
from .session_parts import SessionParts
from .small_gain import frees_too_little, partial_frees_too_little

Confirm = Callable[[CompactionResult], Awaitable[bool]]


class AgentSession(SessionParts, Protocol):
    """What /compact uses of the session (runner.py's `AgentSession`); `cm` and `store` as
    `SessionParts` gives them."""

    messages: list[ModelMessage]
    ext: SessionExtensions
    model: Model

    def _summarizer(self, cm: SummaryInputs) -> SharedPrefixSummarizer: ...

    async def _after_compact(self, result: CompactionResult) -> None: ...

    def context_tokens(self) -> int: ...


async def compact(s: AgentSession, instructions: str, pivot: int | None, direction: str | None,
                  confirm: Confirm | None) -> CompactionResult:
    """Compact the session now; raises CompactionError (CompactionBlocked when a hook or `confirm` said no).
    A provider key in `instructions` (typed after /compact) goes to the summarizer redacted."""
    instructions = secrets.redact(instructions)
    shown: list[CompactionResult] = []
    # No request of this run yet (a resumed session): what the first will carry besides the messages,
    # the system prompt and every tool, MCP servers' too (first_request.py). Unset, the compaction
    # counted the messages only ('8,965 → 2,100 tokens', then /context said 3.1k), sized its summary
    # request as if they took no room, and sent that request without the tools.
    await prepare(s)

    async def check(result: CompactionResult, count: bool = False) -> bool:
        shown.append(result)  # refused or declined from here on, its archive copy is removed (below)
        if count:  # a partial compaction, which the library does not count as sent (a whole one it does)
            as_sent(s, result)
        return confirm is None or await confirm(result)
    try:
        if pivot is not None and direction:
            # As a whole /compact's (below), by the same rule: before its hook and its summary request.
            if (refused := partial_frees_too_little(s.cm, s.messages, pivot, direction, s.context_tokens())):
                raise refused
            result = await _partial(s, instructions, pivot, direction, functools.partial(check, count=True))
        else:
            # Measured by a look, which decides nothing: a refusal changes nothing (no clearing frozen, no event).
            # As /context counts it (in_use.py): the provider's count of the last request, where it still holds.
            before = s.context_tokens()
            if (refused := frees_too_little(s.cm, s.messages, before)) is not None:
                raise refused  # before the summary request: it would take what there is to free
            # The summary request's view, shaped as a request's is; its layers' decisions are taken only
            # once the compaction goes ahead: blocked or declined, it leaves none behind.
            view = tentative(s.cm, list(s.messages))
            result = await s.cm.compact(s.messages, trigger="manual", instructions=instructions,
                                        summary_input=view.shaped.messages, confirm=check, tokens_before=before,
                                        going_ahead=lambda: view.commit(s.cm))
    except (CompactionBlocked, NotSmaller):
        for declined in shown:
            if declined.archive is not None and declined.archive.parent == s.store.archive_dir:
                declined.archive.unlink(missing_ok=True)
        raise
    return result


def as_sent(s: AgentSession, result: CompactionResult) -> None:
    """Count a partial compaction's figures as /context counts the context: the view the next request
    sends, shaped by the view layers (a long output's preview, an earlier read of a file read again
    left out), not the history as saved. `--up-to N` counted the saved history: '14,227 → 8,856
    tokens', where /context said 7.5k before and 2.1k after. The tail a compaction keeps takes the
    difference in its parts. Raises NotSmaller when the request it leaves would be no smaller than the
    one now (a --up-to N that summarises only what the layers already leave out). The history's
    saved size stays in the event's detail (`history_after`), as the library keeps it: /cost counts
    what the history lost from it (extensions.py); from the view's, it counted the kept tail's
    preview saving twice, there and again in each later request's layer saving.

    A whole /compact is the library's (`ContextManager.compact`), which counts so itself before its
    `confirm`; a partial one is the compactor's alone (`compact_partial`), which does not: only it
    is counted here."""
    before = s.context_tokens()  # as /context counts it
    after = s.cm.measure(preview(s.cm, list(result.messages), result.kept).messages)  # the results it keeps, whole
    parts = result.event.detail.get("parts")
    if isinstance(parts, dict) and "verbatim" in parts:
        parts["verbatim"] = max(0, int(parts["verbatim"]) + after - result.tokens_after)
    result.event.detail["history_after"] = result.tokens_after  # what /cost counts it removed, as the library's
    result.tokens_before = result.event.tokens_before = before
    result.tokens_after = result.event.tokens_after = after
    if after >= before:
        raise NotSmaller(f"compaction would not shrink the context ({before:,} → {after:,} tokens)", before=before,
                         after=after, parts=parts if isinstance(parts, dict) else None)


async def _partial(s: AgentSession, instructions: str, pivot: int, direction: str, check: Confirm
                   ) -> CompactionResult:
    assert s.cm.compactor is not None
    started = s.cm.clock()
    try:
        instructions = await s.ext.before_compact("manual", instructions)
    except CompactionBlocked as e:
        s.cm.emit(Event("compact", "blocked", trigger="manual",
                        detail={"reason": e.reason, "fallback": "nothing was changed"}))
        raise
    hook_ms = ms_since(s.cm.clock, started)
    summarize = s._summarizer(s.cm)
    # As a whole /compact's: cut to the window, a summary model's own where it is smaller, asking for
    # what it leaves, and not sent where it cannot fit (one line: SummaryNotSent). It was sized by the
    # run's window and sent unchecked: a summary model with a smaller window refused it.
    with s.cm.summary_sized(summarize):
        result = await s.cm.compactor.compact_partial(
            s.messages, pivot, direction, summarize=summarize, archive=s.store.archive,
            instructions=instructions, overhead=s.cm.overhead)
    add_hook_time(result, hook_ms)
    if direction == "from":
        whole_from_start(result)
    if not await check(result):  # counted as sent first (as_sent)
        s.cm.emit(Event("compact", "blocked", trigger="manual",
                        detail={"reason": "not confirmed at the preview", "fallback": "nothing was changed"}))
        raise CompactionBlocked("not confirmed at the preview")
    s.cm.apply_result(result)
    await s._after_compact(result)
    return result


def whole_from_start(result: CompactionResult) -> None:
    """A `--from N` that keeps no message before its summary (`--from 0`, or one a tool call moved
    back to 0) summarises the whole conversation, the last answer aside as any compaction keeps its
    newest messages: it is recorded and said as a full compaction, in the preview, the line after it,
    /history and the session file's boundary. It was `partial_from`, a compaction that keeps the
    conversation's start, of a conversation whose start was summarised with the rest."""
    parts = result.event.detail.get("parts")
    if not isinstance(parts, dict) or parts.get("head_messages") != 0:
        return
    result.strategy = result.event.action = "full"
    for message in result.messages[:1]:  # the summary message leads the new history
        own = ours(message)  # the message's own dict: set in place
        if own.get("kind") == "summary":
            own["strategy"] = "full"


def summary_split(result: CompactionResult) -> dict[str, int] | None:
    """What the compaction message a `/compact` writes is made of (its parts' `summary`), measured:
    `text` the summary (or record) with its framing, `typed` the user's messages it carries (word for
    word, or cut where they are long; `typed_count` of them), `listed` the rest where it names files:
    the files changed and read, and where the transcript is. The preview said it all as `the summary
    1,930`, the messages typed and the file list counted as summary. None where the message is not
    found (nothing to split)."""
    parts = result.event.detail.get("parts")
    head = int(parts.get("head_messages", 0) or 0) if isinstance(parts, dict) else 0
    found = [m for m in result.messages[:head + 1] if ours(m).get("kind") == "summary"]
    texts = [p.content for p in getattr(found[-1], "parts", ()) if isinstance(p, UserPromptPart)
             and isinstance(p.content, str)] if found else []
    if not texts:
        return None
    lines = texts[0].split("\n")
    end = lines.index(f"</{RECORD_TAG}>") + 1 if f"</{RECORD_TAG}>" in lines else len(lines)
    start = end + 1 if end < len(lines) and not lines[end] else end
    typed, count, i = 0, 0, start
    if i < len(lines) and lines[i].startswith("The user's messages"):
        i += 1
        while i < len(lines) and lines[i]:
            if lines[i].startswith("- "):
                count += 1
            if lines[i].startswith("- <message_") and lines[i].endswith(">"):  # a message of several lines
                close = "</" + lines[i][3:]
                while i + 1 < len(lines) and lines[i] != close:
                    i += 1
            i += 1
        typed = tokens.text_tokens("\n".join(lines[start:i]))
    text = tokens.text_tokens("\n".join(lines[:end]))
    rest = tokens.text_tokens("\n".join(lines[i:])) if any(lines[i:]) else 0
    if not any(line.startswith(("Files ", "Writes and edits")) for line in lines[i:]):
        return {"text": text + rest, "typed": typed, "typed_count": count, "listed": 0}  # the archive's path: framing
    return {"text": text, "typed": typed, "typed_count": count, "listed": rest}
