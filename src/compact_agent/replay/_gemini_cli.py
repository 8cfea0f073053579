"""Gemini CLI's saved chats (``~/.gemini/tmp/<project hash>/chats/session-*.json`` or ``.jsonl``) →
pydantic-ai messages.

What its chat recording service writes (`google-gemini/gemini-cli`, packages/core/src/services/
chatRecordingService.ts and chatRecordingTypes.ts): until April 2026 one JSON document per session,
``{sessionId, projectHash, startTime, lastUpdated, messages}``, rewritten whole; since then JSON lines,
a first line of that metadata, then each message as it is recorded *and again whole each time it
changes* (same ``id``: it keeps its place), ``{"$set": {...}}`` updates (holding ``messages``: the
history replaced whole) and ``{"$rewindTo": id}`` (that message and all after it dropped). The
messages are read as Gemini CLI reads its own file back (`loadConversationRecord`).

It writes the history back whole (`updateMessagesFromHistory`) at the start of every session (the
environment turn), on resume, after a turn cancelled or failed (core/geminiChat.ts rolls its history
back to before the prompt), and after its compression or masking of old tool output. Only the last
rewrite what the model saw: one that keeps every message the model saw as it was (its responses'
text restated as parts, its notices dropped, its ``<session_context>`` turn made again on resume with
that day's date and folder tree: `_context_kept`) changes nothing; one that only drops the last messages is
a turn taken back, which the next request no longer held, so they are left out (with their requests);
any other is a rewrite, marked before the first message it changed, so the sizes recorded before it
still fit ours.

A message is ``{id, timestamp, type, content}``: ``user`` (what was sent; ``displayContent`` what
was typed, when the two differ: a prompt with ``@file`` holds the file after the words), ``gemini``
(its text, ``toolCalls`` each with its ``result`` parts and ``status``, ``thoughts``, ``tokens``),
``info``/``error``/``warning`` (the CLI's own notices, never sent, but for an ``info`` holding only a
tool's images or files: its binary injection, sent as the next user turn and replayed as the image
marker). What is read as Gemini CLI sent it:

* thoughts are not replayed: the live session keeps them out of its history (core/geminiChat.ts keeps
  the parts of a response that are not thoughts);
* each call's result becomes its return, its ``functionResponse`` ``output`` (or ``error``) as text and
  images as the image marker; newer releases also record the results as a user message of function
  responses, which is not read twice;
* user text the harness wrote is not typed: ``<session_context>`` and ``<hook_context>`` blocks, the
  files an ``@`` brought in (the parts after the typed words), the prompt a custom command typed as
  ``/name`` expanded to, and "Please continue." (core/client.ts sends it when its check finds the
  model should go on); a line starting with ``/`` or ``?`` is a command the CLI handled, never sent
  (its own resume leaves these out too, utils/sessionUtils.ts);
* ``tokens``: ``input`` is the whole prompt (``promptTokenCount``, the cached part in ``cached``), to
  which ``tool`` (``toolUsePromptTokenCount``, what its server-side tools put in the prompt) is added;
  thoughts are billed as output, so they are added to ``output``.

Releases before March 2026 recorded a response made only of tool calls (no text, no thoughts) into
the response before it, and its usage nowhere (core/geminiChat.ts flushed a response only when it had
text): the calls of one response finish together and are stamped together, so a record whose calls
came in batches stamped apart is split into one response per batch, the later ones without usage.
Releases from February 2026 masked old tool output (``<tool_output_masked>``, a preview and where the
whole is kept) and wrote the masked result into the record of the call that had sent it whole: such
results are replayed as recorded, said, and the recorded sizes are then no measure of the history
(when a ``$set`` wrote them, from where it stands).
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from datetime import datetime
from typing import Any

from pydantic_ai.messages import ModelResponsePart, TextPart, ToolCallPart
from pydantic_ai.usage import RequestUsage

from ._common import IMAGE_PLACEHOLDER, ConversationBuilder, checked, counted
from ._openai_chat import as_mapping
from ._recorded import CountReader, parse_time, read_counts

#: Calls recorded further apart than this came from responses of their own (one batch is stamped at once).
BATCH_GAP_SECONDS = 0.1
_HARNESS_STARTS = ("<session_context>", "<hook_context>")
_CONTINUE = "Please continue."
_FAILED = frozenset({"error", "cancelled"})
#: The tag around what its masking of old tool output leaves (context/toolOutputMaskingService.ts).
MASKED = "tool_output_masked"
#: Where :func:`messages_of` found the history rewritten (an entry of its own among the messages).
REWRITTEN: Mapping[str, Any] = {"$rewritten": True}


def looks_like_record(record: Mapping[str, Any]) -> bool:
    """The first line of a session in JSON lines (or a whole one on one line): its metadata."""
    return isinstance(record.get("sessionId"), str) and isinstance(record.get("projectHash"), str)


def is_session(document: Any) -> bool:
    """A session saved as one JSON document."""
    return isinstance(document, Mapping) and looks_like_record(document) and isinstance(document.get("messages"), list)


def messages_of(records: list[Mapping[str, Any]], builder: ConversationBuilder) -> list[Mapping[str, Any]]:
    """The session's messages from its records, as Gemini CLI's own loader takes them (a whole
    document is one record holding them all), with a :data:`REWRITTEN` mark where a ``$set`` rewrote
    the history: before the first message it changed (or the first added after it)."""
    kept: dict[str, Mapping[str, Any]] = {}
    marks: list[int] = []  # the rewrites, each by how many messages the model saw stand before it
    rewound = rolled_back = 0
    for record in records:
        if isinstance(record.get("$rewindTo"), str):
            ids = list(kept)
            at = ids.index(record["$rewindTo"]) if record["$rewindTo"] in ids else 0
            rewound += len(ids) - at
            for gone in ids[at:]:
                del kept[gone]
            marks = [min(m, len(_seen(kept))) for m in marks]
        elif isinstance(record.get("id"), str):
            kept[record["id"]] = record
        elif isinstance(as_mapping(record.get("$set")).get("messages"), list):
            new = _context_kept({m["id"]: m for m in record["$set"]["messages"]
                                 if isinstance(m, Mapping) and isinstance(m.get("id"), str)}, kept)
            old, same, results_changed = _seen(kept), 0, False  # same: how many the model saw stand as they were
            for before, now in zip(old, new.values(), strict=False):
                if _said(before) != _said(now):
                    break
                same += 1
                if results_changed := _results(before) != _results(now):
                    break  # only the results of its calls: the change stands after it (their request)
            marks = [min(m, same) for m in marks]
            if results_changed or same < min(len(old), len(new)):
                marks.append(same)  # its compression or its masking of old tool output
            elif same < len(old):  # a turn cancelled or failed, taken back: its messages dropped, none added
                rolled_back += len(old) - same
            kept = new
        elif looks_like_record(record) and isinstance(record.get("messages"), list):
            kept.update({m["id"]: m for m in record["messages"] if isinstance(m, Mapping) and isinstance(m.get("id"), str)})
        elif not (looks_like_record(record) or "$set" in record):
            builder.skip_kind(record.get("type") or next(iter(record), None))
    if rewound:
        builder.warnings.append(f"left out {counted(rewound, 'message')} the conversation was rewound past: the "
                                "model never saw them again")
    if rolled_back:
        builder.warnings.append(f"left out {counted(rolled_back, 'message')} of turns Gemini CLI took back when they "
                                "were cancelled or failed: the model never saw them again, and their requests are "
                                "not replayed")
    if marks:
        builder.warnings.append(f"Gemini CLI rewrote this session's history {_times(len(marks))}(its compression or its "
                                "masking of old tool output): replayed as rewritten, and the sizes it recorded from "
                                "the first rewritten message on are not used to fit ours")
    out: list[Mapping[str, Any]] = []
    seen = 0
    for message in kept.values():
        if _is_seen(message):
            out += [REWRITTEN] * marks.count(seen)
            seen += 1
        out.append(message)
    return out + [REWRITTEN] * marks.count(seen)


def _context_kept(new: dict[str, Mapping[str, Any]], kept: Mapping[str, Mapping[str, Any]]
                  ) -> dict[str, Mapping[str, Any]]:
    """``new`` with the harness's context turns (`_is_context`) as ``kept`` had them: on resume Gemini CLI
    makes its ``<session_context>`` turn again, under the same id, with that day's date and folder tree
    (utils/environmentContext.ts ``getInitialChatHistory``), which is no rewrite of what the model saw. Its
    new text is not replayed, the replay holding one history for every request: the old one stays, in
    its place. A file whose context turn was saved under an id of its own (before the fixed id of
    2026-05-21) has it dropped by a resume since 2026-05-24 (utils/sessionUtils.ts leaves such turns out
    of the history it resumes) and the new one in front under the fixed id: the old one stays in its
    place too, one turn as the model saw one.

    A context turn put in front of messages the history kept, not standing in for one it dropped, was
    sent from the resume on as well as those messages: a file begun before May 2026 gets one it never had,
    and the releases of 2026-05-21 to 2026-05-23 put the new one in front of the old one they still kept,
    so the model read two. It is replayed where the resume sent it first, after the messages kept (the
    replay's history only grows), so that every request from then on holds what the recorded one did;
    a later ``$set`` restating it in front leaves it there."""
    out: dict[str, Mapping[str, Any]] = {}
    ids = list(new)
    first = next(((key, m) for key, m in kept.items() if _is_seen(m)), None)  # what the model saw first
    dropped = first if first is not None and _is_context(first[1]) and first[0] not in new else None
    resumed: dict[str, Mapping[str, Any]] = {}  # put in front on resume: sent after the messages kept
    for at, (key, message) in enumerate(new.items()):
        if _is_context(message) and key in kept and _is_context(kept[key]):
            message = kept[key]
        elif _is_context(message) and key not in kept and dropped is not None:
            (key, message), dropped = dropped, None
        elif _is_context(message) and key not in kept and any(later in kept for later in ids[at + 1:]):
            resumed[key] = message
            continue
        out[key] = message
    order = [key for key in out if not (key in kept and _is_context(out[key]))]
    for key in (k for k in kept if k in out and _is_context(out[k])):  # held where the replay first sent them
        before = [k for k in list(kept)[:list(kept).index(key)] if k in order]
        order.insert(order.index(before[-1]) + 1 if before else 0, key)
    last_kept = max((i for i, key in enumerate(order) if key in kept), default=-1)
    order[last_kept + 1:last_kept + 1] = list(resumed)
    return {key: out[key] if key in out else resumed[key] for key in order}


def _is_context(message: Mapping[str, Any]) -> bool:
    """A user turn the harness wrote whole: its ``<session_context>`` or ``<hook_context>`` blocks alone."""
    texts = [t.strip() for t in map(_text, _parts(message.get("content"))) if t.strip()]
    return message.get("type") == "user" and bool(texts) and all(t.startswith(_HARNESS_STARTS) for t in texts)


def _times(n: int) -> str:
    return "" if n == 1 else f"{n} times "


def _is_seen(message: Mapping[str, Any]) -> bool:
    """Sent to the model: not one of the CLI's own notices (which its history never holds)."""
    return message.get("type") in {"user", "gemini"} or _is_injected(message)


def _is_injected(message: Mapping[str, Any]) -> bool:
    """An ``info`` message holding only a tool's binary output (images, files): Gemini CLI sends it as
    the next user turn (core/geminiChat.ts, its binary injection)."""
    parts = _parts(message.get("content"))
    return message.get("type") == "info" and bool(parts) and all(
        isinstance(p, Mapping) and ("inlineData" in p or "fileData" in p) for p in parts)


def _seen(kept: Mapping[str, Mapping[str, Any]]) -> list[Mapping[str, Any]]:
    return [m for m in kept.values() if _is_seen(m)]


def _said(message: Mapping[str, Any]) -> tuple[Any, str]:
    """A message's id and text as the model saw it (a ``$set`` restates a response's text as its parts,
    its calls among them)."""
    return message.get("id"), "".join(map(_text, _parts(message.get("content"))))


def _results(message: Mapping[str, Any]) -> list[tuple[Any, str]]:
    """The results of a response's calls, as the model saw them."""
    return [(c.get("id"), _result(c)) for c in message.get("toolCalls") or [] if isinstance(c, Mapping)]


def import_gemini_cli(records: list[Mapping[str, Any]], builder: ConversationBuilder) -> None:
    """Feed a Gemini CLI session into `builder` (see the module docstring)."""
    commands = split = masked = 0
    # A subagent's chat is a file of its own (chats/<parent session>/<id>.jsonl), its metadata saying so.
    builder.subagent = any(looks_like_record(r) and r.get("kind") == "subagent" for r in records[:1])
    messages = messages_of(records, builder)
    rewritten = any(m is REWRITTEN for m in messages)  # a masking written by a $set: said and placed there
    for message in messages:
        if message is REWRITTEN:
            # From here on the history is not as the sizes recorded before were measured on.
            builder.record_compaction({"source": "gemini-cli", "kind": "history rewritten", "timestamp": None,
                                       "message_index": None})
            continue
        try:
            kind = message.get("type")
            timestamp = parse_time(message.get("timestamp"))
            if kind == "user":
                commands += not _user(builder, message, timestamp)
            elif kind == "gemini":
                more, hidden = _gemini(builder, message, timestamp)
                split, masked = split + more, masked + hidden * (not rewritten)
            elif _is_injected(message):  # a tool's images or files, sent as the next user turn
                for part in _parts(message.get("content")):
                    builder.add_user_text(_text(part), timestamp, harness=True)
            elif kind not in {"info", "error", "warning"}:
                builder.skip_kind(kind)
        except (KeyError, TypeError, ValueError, AttributeError) as exc:
            builder.skip_malformed(exc)
    if commands:
        builder.warnings.append(f"left out {counted(commands, 'command')} the CLI handled itself (a line starting "
                                "with / or ?): never sent to the model")
    if split:
        builder.warnings.append(f"{counted(split, 'response')} made only of tool calls {'was' if split == 1 else 'were'} "
                                "recorded inside the response before (releases before March 2026): replayed as "
                                f"{'a response' if split == 1 else 'responses'} of {'its' if split == 1 else 'their'} "
                                "own, without usage")
    if masked and builder.messages:
        # Its masking rewrote these results in the file after they were sent whole: sizes recorded before
        # were of the whole outputs, so none is a measure of the history replayed.
        builder.warnings.append(f"{counted(masked, 'tool result')} {'was' if masked == 1 else 'were'} recorded as "
                                f"Gemini CLI later masked {'it' if masked == 1 else 'them'} (<tool_output_masked>), not as "
                                "first sent: replayed masked, and the recorded sizes are not used to fit ours")
        builder.record_compaction({"source": "gemini-cli", "kind": "tool output masked", "timestamp": None,
                                   "message_index": None}, builder.messages[0].parts[0])


def _parts(content: Any) -> list[Any]:
    if content is None:
        return []
    return [{"text": content}] if isinstance(content, str) else content if isinstance(content, list) else [content]


def _text(part: Any) -> str:
    """What the model read of a part, in text (a tool's response by its output or error)."""
    if isinstance(part, str):
        return part
    if not isinstance(part, Mapping):
        return ""
    if isinstance(text := part.get("text"), str) and not part.get("thought"):
        return text
    if "inlineData" in part or "fileData" in part:
        return IMAGE_PLACEHOLDER
    if isinstance(response := as_mapping(part.get("functionResponse")).get("response"), Mapping):
        said = response.get("output", response.get("error"))
        return said if isinstance(said, str) else json.dumps(response, ensure_ascii=False)
    return ""


def _result(call: Mapping[str, Any]) -> str:
    """A call's result in text: its own function response (a ``$set`` may have written the responses of
    all the calls of its turn into each call's record) and the parts beside it."""
    parts = _parts(call.get("result"))
    ids = [as_mapping(p.get("functionResponse")).get("id") for p in parts if isinstance(p, Mapping)]
    if call.get("id") in ids:
        parts = [p for p in parts if not isinstance(p, Mapping) or "functionResponse" not in p
                 or as_mapping(p["functionResponse"]).get("id") == call.get("id")]
    return "\n".join(t for t in map(_text, parts) if t)


def _user(builder: ConversationBuilder, message: Mapping[str, Any], timestamp: datetime | None) -> bool:
    """A user message; False for a command the CLI handled (never sent)."""
    parts = _parts(message.get("content"))
    if parts and all(isinstance(p, Mapping) and "functionResponse" in p for p in parts):
        return True  # the results again, as newer releases record them: read from the calls
    texts = [_text(p) for p in parts]
    if "".join(texts).strip().startswith(("/", "?")):
        return False
    typed = "".join(_text(p) for p in _parts(message.get("displayContent"))).strip()
    for index, text in enumerate(texts):
        flat = text.strip()
        harness = flat.startswith(_HARNESS_STARTS) or flat == _CONTINUE or typed.startswith("/") or bool(
            typed and flat and flat not in typed and index)  # what an @ brought in, after the typed words
        builder.add_user_text(text, timestamp, harness=harness)
    return True


def _gemini(builder: ConversationBuilder, message: Mapping[str, Any], timestamp: datetime | None
            ) -> tuple[int, int]:
    """A response (and its calls' results); the number of responses of tool calls alone found inside
    it, and of results recorded masked."""
    content = _parts(message.get("content"))
    records = {c["id"]: c for c in message.get("toolCalls") or [] if isinstance(c, Mapping) and isinstance(c.get("id"), str)}
    in_content = [as_mapping(p.get("functionCall")) for p in content if isinstance(p, Mapping) and "functionCall" in p]
    batches: list[list[Mapping[str, Any]]]
    if in_content:  # newer releases keep the response's parts as sent, its calls among them
        batches = [[{**records.get(str(c.get("id")), {}), **c} for c in in_content]]
    else:
        batches = _batches(list(records.values()))
    model = message.get("model") if isinstance(message.get("model"), str) else None
    text = "".join(_text(p) for p in content if not (isinstance(p, Mapping) and "functionCall" in p))
    masked = 0
    # All checked before any is added: a bad field (args that are a number) costs this record alone.
    calls = [[checked(ToolCallPart(str(c["name"]), c.get("args") or {}, tool_call_id=str(c["id"]))) for c in batch]
             for batch in batches]
    for number, batch in enumerate(batches or [[]]):
        parts: list[ModelResponsePart] = [TextPart(text)] if number == 0 else []
        parts += calls[number] if calls else []
        builder.add_response(parts, usage=_usage(message) if number == 0 else None, model_name=model,
                             timestamp=timestamp if number == 0 else parse_time(batch[0].get("timestamp")))
        for call in batch:
            if call.get("result") is not None:
                result = _result(call)
                masked += f"<{MASKED}>" in result
                builder.add_tool_return(str(call["id"]), result, parse_time(call.get("timestamp")) or timestamp,
                                        failed=call.get("status") in _FAILED)
    return max(len(batches) - 1, 0), masked


def _batches(calls: list[Mapping[str, Any]]) -> list[list[Mapping[str, Any]]]:
    """The calls in the batches they finished in: stamped within BATCH_GAP_SECONDS of the one before."""
    batches: list[list[Mapping[str, Any]]] = []
    last: datetime | None = None
    for call in calls:
        stamp = parse_time(call.get("timestamp"))
        if not batches or (stamp is not None and last is not None
                           and (stamp - last).total_seconds() > BATCH_GAP_SECONDS):
            batches.append([])
        batches[-1].append(call)
        last = stamp or last
    return batches


def _usage(message: Mapping[str, Any]) -> RequestUsage | None:
    """A reply's recorded ``tokens``, each read as a count (`read_counts`): 25.0 is 25, and one that is
    no count (text, NaN, a negative number) makes the request's usage unknown, said."""
    return read_counts(lambda count: _tokens(message, count))


def _tokens(message: Mapping[str, Any], count: CountReader) -> RequestUsage | None:
    tokens, output, cached, thoughts, tool = (count(message, f"tokens.{key}")
                                              for key in ("input", "output", "cached", "thoughts", "tool"))
    if not (tokens or output):
        return None
    # `tool` (toolUsePromptTokenCount) is the prompt of its server-side tools, billed as input beside `input`.
    return RequestUsage(input_tokens=tokens + tool, cache_read_tokens=cached, output_tokens=output + thoughts,
                        output_reasoning_tokens=thoughts)
