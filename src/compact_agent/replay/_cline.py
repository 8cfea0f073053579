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
tool results sent as text, ``[TASK RESUMPTION]`` notes, reminders to use a tool. A text block is
split where a tagged span starts and ends (the characters sent are all kept), so only the person's
words count as typed. A file is read as Cline's when its user entries show these marks (the task in
``<task>``, the ``<environment_details>`` block); a plain list of Anthropic messages is chat.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from ._anthropic_blocks import add_user_blocks, response_parts
from ._common import ConversationBuilder
from ._openai_chat import as_mapping
from ._recorded import parse_time, usage_from_mapping

#: Where Cline puts the person's words (its USER_CONTENT_TAGS), each on lines of its own.
_TYPED = re.compile(r"^<(task|feedback|answer|user_message)>\n.*?\n</\1>$", re.MULTILINE | re.DOTALL)
_MARKS = ("<task>", "<environment_details>")
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


def typed_spans(text: str) -> list[tuple[str, bool]]:
    """`text` cut into pieces, each with whether it is the person's (a span in one of Cline's tags);
    the pieces joined are `text`."""
    pieces: list[tuple[str, bool]] = []
    at = 0
    for match in _TYPED.finditer(text):
        pieces += [(text[at:match.start()], False), (match.group(), True)]
        at = match.end()
    return [*pieces, (text[at:], False)]


def import_cline(entries: list[Any], builder: ConversationBuilder) -> None:
    """Feed Cline's history entries into `builder` (see the module docstring)."""
    for entry in entries:
        if not isinstance(entry, Mapping):
            builder.skipped += 1
            continue
        try:
            _entry(builder, entry)
        except (KeyError, TypeError, ValueError, AttributeError) as exc:
            builder.skip_malformed(exc)


def _entry(builder: ConversationBuilder, entry: Mapping[str, Any]) -> None:
    stamp = entry.get("ts")
    timestamp = parse_time(stamp / 1000 if isinstance(stamp, int | float) and not isinstance(stamp, bool) else stamp)
    role = entry.get("role")
    if role == "user":
        def text(words: str) -> None:
            for piece, typed in typed_spans(words):
                builder.add_user_text(piece, timestamp, harness=not typed)

        add_user_blocks(builder, entry["content"], timestamp, text)
    elif role == "assistant":
        model = as_mapping(entry.get("modelInfo"))
        model_id, provider = model.get("modelId"), model.get("providerId")
        builder.add_response(
            response_parts(entry["content"]),
            usage=usage_from_mapping(entry.get("usage")),
            model_name=model_id if isinstance(model_id, str) else None,
            provider_name=provider if isinstance(provider, str) and isinstance(model_id, str) else None,
            provider_response_id=entry.get("id") if isinstance(entry.get("id"), str) else None,
            timestamp=timestamp,
        )
    else:
        builder.skipped += 1
