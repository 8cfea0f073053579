"""Cline's task history (``tasks/<id>/api_conversation_history.json``) → pydantic-ai messages.

What Cline keeps (`cline/cline`, src/core/storage/disk.ts, src/core/task/message-state.ts,
src/shared/messages/content.ts): the conversation as it sends it, one JSON array of Anthropic
Messages entries ``{role, content}`` rewritten whole after every change, each entry carrying ``ts``
(milliseconds), an assistant entry also the response's ``id`` and ``modelInfo`` (``modelId``,
``providerId``). Content is a string or Anthropic blocks (`_anthropic_blocks`): calls as ``tool_use``
and results as ``tool_result`` when the model calls tools natively; in the releases that had the model
write its calls as XML in its text, a call is the assistant's text and its result the user's text,
``[read_file for 'a.py'] Result:`` and the output, which the model read as text and is replayed so.

Whose words a user entry holds, as Cline marks them (src/shared/messages/constants.ts
``USER_CONTENT_TAGS``): the person's are wrapped in ``<task>``, ``<feedback>``, ``<answer>`` or
``<user_message>``; everything else in the user's role is the harness's: ``<environment_details>``,
tool results sent as text, ``[TASK RESUMPTION]`` notes, reminders to use a tool, and the tags
themselves. A text block is split where the words inside the tags start and end (the characters sent
are all kept), so only the person's words count as typed. A file is read as Cline's when its user entries show these marks (the task in
``<task>``, the ``<environment_details>`` block); a plain list of Anthropic messages is chat. Roo Code
(`RooCodeInc/Roo-Code`) keeps the same files with the same marks (its task in ``<user_message>``), plus
its own compactions kept inside the file (`_roo_compaction`) and its own way of counting a request's
input (`_usage`); its ``reasoning`` and ``thoughtSignature`` blocks, kept for some providers only,
are not replayed.

The history holds no usage Cline's own accounting trusts: each request's counts are written on the
``api_req_started`` line of ``ui_messages.json`` beside it (``tokensIn``, ``tokensOut``,
``cacheWrites``, ``cacheReads`` in the line's JSON text; src/core/task/utils.ts ``updateApiReqMsg``).
They are attached to the response they belong to only where that is certain (`_recorded_usage`), and
sized as Cline sizes a request (src/core/context/context-management/ContextManager.ts: the four
summed), except for the OpenAI-compatible provider, whose input already holds the cache reads. The
``metrics`` newer releases put on an assistant entry lump cache reads and writes together: not used.
"""

from __future__ import annotations

import errno
import json
import os
import re
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from pydantic_ai.usage import RequestUsage

from ..regular_file import NotRegular, TooLarge, read_capped
from ._anthropic_blocks import add_user_blocks, response_parts
from ._common import ConversationBuilder, counted
from ._openai_chat import as_mapping
from ._recorded import (
    CountReader,
    decoded,
    invalid_bytes_note,
    loads,
    parse_time,
    read_counts,
    usage_from_mapping,
)

#: Where Cline puts the person's words (its USER_CONTENT_TAGS), each on lines of its own: the words
#: between the tags (group ``words``) are the person's, the tags Cline's.
_TYPED = re.compile(r"^<(task|feedback|answer|user_message)>\n(?P<words>.*?)\n</\1>$", re.MULTILINE | re.DOTALL)
#: The task's record of what the person saw, beside its history: each request's usage among it.
UI_MESSAGES = "ui_messages.json"
_SNIFF_ENTRIES = 20


def looks_like_cline(document: Any) -> bool:
    """A list of role entries whose user text carries Cline's own marks (see the module docstring)."""
    if not isinstance(document, list):
        return False
    for entry in document[:_SNIFF_ENTRIES]:
        if not isinstance(entry, Mapping) or entry.get("role") != "user":
            continue
        content = entry.get("content")
        blocks = [{"type": "text", "text": content}] if isinstance(content, str) else content
        for block in blocks if isinstance(blocks, list) else []:
            text = block.get("text") if isinstance(block, Mapping) else None
            if isinstance(text, str) and (text.lstrip().startswith("<task>") or "<environment_details>" in text):
                return True
    return False


def typed_spans(text: str, wrapped: re.Pattern[str] = _TYPED) -> list[tuple[str, bool]]:
    """`text` cut into pieces, each with whether it is the person's: the words inside each span
    `wrapped` matches (its group ``words``), without the tags around them, which are the harness's
    as the rest is; the pieces joined are `text`."""
    pieces: list[tuple[str, bool]] = []
    at = 0
    for match in wrapped.finditer(text):
        pieces += [(text[at:match.start("words")], False), (match.group("words"), True)]
        at = match.end("words")
    return [*pieces, (text[at:], False)]


def import_cline(entries: list[Any], builder: ConversationBuilder, ui_messages: Path | None = None) -> None:
    """Feed Cline's history entries into `builder` (see the module docstring); the usage of each
    request comes from `ui_messages` (the task's ``ui_messages.json``) where it matches for certain."""
    ui = (_read_ui(ui_messages, builder) or []) if ui_messages is not None else []
    usage = _recorded_usage(entries, ui, UI_MESSAGES, builder)
    cut = _truncated_from(entries, ui, builder)
    for index, entry in enumerate(entries):
        if index == cut:
            builder.record_compaction({"source": "cline", "kind": "truncation", "timestamp": None,
                                       "message_index": None})
        if not isinstance(entry, Mapping):
            builder.skipped += 1
            continue
        try:
            _entry(builder, entry, usage.get(index))
        except (KeyError, TypeError, ValueError, AttributeError) as exc:
            builder.skip_malformed(exc)


def _millis(stamp: Any) -> float | None:
    return stamp if isinstance(stamp, int | float) and not isinstance(stamp, bool) else None


def _entry(builder: ConversationBuilder, entry: Mapping[str, Any], usage: RequestUsage | None) -> None:
    stamp = _millis(entry.get("ts"))
    timestamp = parse_time(stamp / 1000 if stamp is not None else entry.get("ts"))
    role = entry.get("role")
    if role == "user" and (entry.get("isSummary") or entry.get("isTruncationMarker")):
        _roo_compaction(builder, entry, timestamp)
    elif role == "user":
        def text(words: str) -> None:
            for piece, typed in typed_spans(words):
                builder.add_user_text(piece, timestamp, harness=not typed)

        add_user_blocks(builder, entry["content"], timestamp, text)
    elif role == "assistant":
        model = as_mapping(entry.get("modelInfo"))
        model_id, provider = model.get("modelId"), model.get("providerId")
        builder.add_response(
            response_parts(entry["content"]),
            usage=usage or usage_from_mapping(entry.get("usage")),
            model_name=model_id if isinstance(model_id, str) else None,
            provider_name=provider if isinstance(provider, str) and isinstance(model_id, str) else None,
            provider_response_id=entry.get("id") if isinstance(entry.get("id"), str) else None,
            timestamp=timestamp,
        )
    else:
        builder.skip_kind(role)


def _roo_compaction(builder: ConversationBuilder, entry: Mapping[str, Any], timestamp: Any) -> None:
    """Roo Code compacts without removing anything from the file (src/core/condense/index.ts,
    src/core/context-management/index.ts): its summary (``isSummary``) is appended after the messages it
    stands for, which are tagged and no longer sent; a sliding-window truncation tags the messages it hides
    and puts a marker (``isTruncationMarker``) where they end. The summary is the recording agent's own,
    as Claude Code's is: imported as the harness's text and recorded as a compaction, so the replay
    leaves it out; a marker (a note that messages are hidden, false of the whole history replayed) is
    left out and recorded as a compaction where it stood."""
    kind = "condense" if entry.get("isSummary") else "truncation"
    record: dict[str, Any] = {"source": "roo-code", "kind": kind, "timestamp": timestamp, "message_index": None}
    if kind == "truncation":
        builder.record_compaction(record)
        return
    content = entry["content"]
    texts = [content] if isinstance(content, str) else [b.get("text") or "" for b in content
                                                        if isinstance(b, Mapping) and b.get("type") == "text"]
    part = builder.add_user_text(texts[0], timestamp, harness=True) if texts else None
    for more in texts[1:]:
        builder.add_user_text(more, timestamp, harness=True)
    builder.record_compaction({**record, "summary_chars": len(texts[0]) if part else None}, part)


# --- usage, from the task's ui_messages.json --------------------------------------------------------------

#: Cline's providers whose input count leaves out the cached tokens, as its own sum of a request's size
#: (tokensIn + cacheWrites + cacheReads) takes it (src/core/api/providers/: anthropic.ts, openrouter.ts,
#: cline.ts, deepseek.ts); ``openai`` (any OpenAI-compatible endpoint, openai.ts) counts the cache
#: reads inside its input and puts DeepSeek's cache misses where the writes go.
_INPUT_WITHOUT_CACHE = frozenset({"anthropic", "openrouter", "cline", "deepseek"})
_INPUT_WITH_CACHE = frozenset({"openai"})
MAX_UI_BYTES = 64 << 20


def _counts(message: Any) -> tuple[Mapping[str, Any], float | None, Any] | None:
    """An ``api_req_started`` line's recorded counts, when it has any, with its time and the history
    index it names."""
    if not isinstance(message, Mapping) or message.get("say") != "api_req_started":
        return None
    try:
        info = loads(message.get("text") or "")
    except (json.JSONDecodeError, TypeError, RecursionError):
        return None
    # Any value there, a count or not: one that is no count is said, as its request's usage unknown (`_usage`).
    if not isinstance(info, Mapping) or all(info.get(k) is None for k in ("tokensIn", "tokensOut")):
        return None
    return info, _millis(message.get("ts")), message.get("conversationHistoryIndex")


def _read_ui(path: Path, builder: ConversationBuilder) -> list[Any] | None:
    """The task's ``ui_messages.json``, read only as a regular file, without blocking, up to
    MAX_UI_BYTES (regular_file.py): a pipe there waited for a writer for ever, a link to /dev/zero
    filled memory, and either took the whole run down with it. A link in its place is not followed
    (`side_file_refused`): Cline writes the file itself, never a link."""
    try:
        text, invalid = decoded(read_capped(path, MAX_UI_BYTES, follow_links=False))
        document = loads(text)
    except FileNotFoundError:
        return None
    except TooLarge:
        builder.warnings.append(f"{path.name} beside it is too large to read: its recorded usage is not used")
        return None
    except NotRegular as e:
        builder.warnings.append(f"{path.name} beside it {side_file_refused(path, e)}, not read: "
                                "its recorded usage is not used")
        return None
    except (OSError, json.JSONDecodeError, RecursionError):
        builder.warnings.append(f"{path.name} beside it cannot be read as JSON: its recorded usage is not used")
        return None
    if not isinstance(document, list):
        return None
    if invalid:
        builder.warnings.append(f"{path.name} beside it: {invalid_bytes_note(invalid)}")
    return document


def side_file_refused(path: Path, e: NotRegular) -> str:
    """Why a file Cline keeps beside a history (`path`) was not read, `e` said as `read_capped` raised
    it: a link (to where), or not a regular file."""
    if e.errno != errno.ELOOP:
        return "is not a regular file (a pipe, a device or a folder)"
    try:
        return f"is a link (to {os.readlink(path)}), which the analyzer does not follow"
    except OSError:  # gone since
        return "is a link, which the analyzer does not follow"


def _truncated_from(entries: list[Any], ui: list[Any], builder: ConversationBuilder) -> int | None:
    """The history index of the first request Cline may have sent with part of the history left out.

    Cline's context management never rewrites the history file: it keeps a range of entries to leave
    out of each request (``conversationHistoryDeletedRange``, its truncation, and what its summary of
    the task replaces), noted on every ui_messages line written after it was set. The request that
    first left them out is the one under way when the first such line was written: from its user entry
    on, the recorded sizes are of requests shorter than the history, the recording agent's compaction
    at work, not a measure of the history (with no line naming where that request began: from the
    start)."""
    first = next((i for i, m in enumerate(ui) if isinstance(m, Mapping)
                  and isinstance(m.get("conversationHistoryDeletedRange"), list)
                  and m["conversationHistoryDeletedRange"]), None)
    if first is None:
        return None
    began = next((m for m in reversed(ui[:first + 1]) if isinstance(m, Mapping) and m.get("say") == "api_req_started"),
                 None)
    index = began.get("conversationHistoryIndex") if began is not None else None
    cut = max(index + 1, 0) if isinstance(index, int) and not isinstance(index, bool) else 0
    request = 1 + sum(1 for e in entries[:cut] if isinstance(e, Mapping) and e.get("role") == "assistant")
    builder.warnings.append(f"Cline left part of the history out of its requests (its context management) from "
                            f"request {request:,} on: the sizes it recorded from there are not used to fit ours")
    return cut


def _recorded_usage(entries: list[Any], ui: list[Any], name: str, builder: ConversationBuilder
                    ) -> dict[int, RequestUsage]:
    """The usage of each request, by the index of the history entry holding its response.

    Cline says ``api_req_started`` just before it adds a request's user entry, and notes on the line the
    index of the history's last entry then (``conversationHistoryIndex``, since early 2025): the request's
    response is the entry two on. Lines without the index (older releases) are matched in order, only
    when there are as many as responses. Either way the counts are attached only when no other request
    names the same response and the times agree: the request began after the response before it was
    written, and before its own. The rest are said in a warning."""
    requests = [c for c in map(_counts, ui) if c is not None]
    if not requests:
        return {}

    def role(i: int) -> Any:
        return entries[i].get("role") if 0 <= i < len(entries) and isinstance(entries[i], Mapping) else None

    answers = [i for i in range(len(entries)) if role(i) == "assistant"]
    if all(isinstance(k, int) and not isinstance(k, bool) for _, _, k in requests):
        targets: list[int | None] = [k + 2 if role(k + 1) == "user" and role(k + 2) == "assistant" else None
                                     for _, _, k in requests]
    else:
        targets = list(answers) if len(requests) == len(answers) else [None] * len(requests)
    named = [t for t in targets if t is not None]
    usage: dict[int, RequestUsage] = {}
    for (info, began, _), target in zip(requests, targets, strict=True):
        if target is None or named.count(target) > 1:
            continue
        before = [_millis(entries[i].get("ts")) for i in answers if i < target]  # the responses it came after
        answered = _millis(entries[target].get("ts"))
        if began is None or answered is None or answered < began or any(t is None or t > began for t in before[-1:]):
            continue
        usage[target] = _usage(info, as_mapping(entries[target].get("modelInfo")).get("providerId"))
    if unmatched := len(requests) - len(usage):
        builder.warnings.append(
            f"{counted(unmatched, 'request')} of {name} could not be matched for certain with "
            f"{'its response' if unmatched == 1 else 'their responses'}: "
            f"{'its' if unmatched == 1 else 'their'} recorded usage is not used")
    doubts = [_doubt(info, as_mapping(entries[t].get("modelInfo")).get("providerId"))
              for (info, _, _), t in zip(requests, targets, strict=True) if t in usage]
    if unknown := doubts.count("provider"):
        builder.warnings.append(
            f"{counted(unknown, 'request')} with cached tokens from a provider whose counting is not known "
            "here: sized as Cline sums them (input + cache writes + cache reads), which counts the cache twice "
            "for a provider that counts it in its input")
    if whole := doubts.count("roo"):
        builder.warnings.append(
            f"{counted(whole, 'request')} on Anthropic's protocol recorded an input at least as large as "
            f"{'its' if whole == 1 else 'their'} cached part: taken as the whole input, as Roo Code counts it "
            "since October 2025 (from July to October 2025 it recorded the uncached part alone)")
    return usage


def _doubt(info: Mapping[str, Any], provider: Any) -> str | None:
    """Why a request's size may be misread: "provider" (a Cline provider whose counting is not known
    here, with cached tokens), "roo" (a Roo Code line whose input may be the whole or the uncached part)."""
    usage = _usage(info, provider)
    cached = usage.cache_read_tokens + usage.cache_write_tokens
    if not cached:
        return None
    if "apiProtocol" in info:
        return "roo" if info.get("apiProtocol") == "anthropic" \
            and usage.input_tokens == read_counts(lambda count: count(info, "tokensIn")) else None
    return "provider" if provider not in _INPUT_WITHOUT_CACHE | _INPUT_WITH_CACHE else None


def _usage(info: Mapping[str, Any], provider: Any) -> RequestUsage:
    """A request's recorded counts as usage. Roo Code (and its forks) write the API protocol on the line
    (``apiProtocol``, since July 2025): on OpenAI's the input holds the cached part, on Anthropic's it
    does since October 2025 (src/shared/cost.ts), before only when it is not smaller than that part.
    The counts are read as every importer reads them (`read_counts`): 25.0 is 25, and one that is no
    count (text, NaN, a negative number) makes the request's usage unknown, said."""
    return read_counts(lambda count: _sized(info, provider, count))


def _sized(info: Mapping[str, Any], provider: Any, count: CountReader) -> RequestUsage:
    tokens_in, read, write, output = (count(info, key) for key in ("tokensIn", "cacheReads", "cacheWrites", "tokensOut"))
    protocol = info.get("apiProtocol")
    if protocol == "openai" or (protocol == "anthropic" and tokens_in >= read + write):
        return RequestUsage(input_tokens=tokens_in, cache_read_tokens=read, cache_write_tokens=write,
                            output_tokens=output)
    if provider in _INPUT_WITH_CACHE:
        return RequestUsage(input_tokens=max(tokens_in, read), cache_read_tokens=read, output_tokens=output)
    return RequestUsage(input_tokens=tokens_in + read + write, cache_read_tokens=read, cache_write_tokens=write,
                        output_tokens=output)
