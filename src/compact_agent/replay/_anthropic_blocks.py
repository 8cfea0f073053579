"""Anthropic Messages content blocks → pydantic-ai parts, for every importer whose source keeps them.

Claude Code's session lines, Cline's task history and chat lists saved from the Anthropic API all hold
a message's content as a string or a list of blocks: ``text``, ``image``, ``tool_use`` and
``thinking``/``redacted_thinking`` in the assistant's role, ``text``, ``image`` and ``tool_result`` in
the user's. One reading of them lives here so the formats cannot drift apart: a tool_use is a call, a
tool_result the return it answers (``is_error`` kept as a failed outcome), thinking is kept with its
signature unless the source redacted it, and an image is the importers' image marker.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from datetime import datetime
from typing import Any

from pydantic_ai.messages import ModelResponsePart, TextPart, ThinkingPart, ToolCallPart

from ._common import IMAGE_PLACEHOLDER, ConversationBuilder, checked, text_of_blocks

#: Blocks only the Anthropic format has: a list holding one is read here, not as OpenAI chat content.
CALL_BLOCKS = frozenset({"tool_use", "tool_result"})


def block_kinds(content: Any) -> set[str]:
    """The ``type`` of each block of `content` (none for string content)."""
    if not isinstance(content, list):
        return set()
    return {str(b.get("type")) for b in content if isinstance(b, Mapping)}


def response_parts(content: Any) -> list[ModelResponsePart]:
    """An assistant message's content as response parts, in the order the blocks came."""
    if isinstance(content, str):
        return [TextPart(content)]
    parts: list[ModelResponsePart] = []
    for block in content or []:
        kind = block.get("type")
        if kind == "text":
            parts.append(TextPart(block.get("text") or ""))
        elif kind == "thinking":
            signature = block.get("signature") or None
            if signature and signature.startswith("[REDACTED"):
                signature = None  # a replay must never send a signature the API would reject
            parts.append(ThinkingPart(block.get("thinking") or "", signature=signature,
                                      provider_name="anthropic" if signature else None))
        elif kind == "redacted_thinking":
            parts.append(ThinkingPart("", id="redacted_thinking", signature=block.get("data"),
                                      provider_name="anthropic"))
        elif kind == "tool_use":
            parts.append(ToolCallPart(block["name"], block.get("input") or {}, tool_call_id=block["id"]))
    return [checked(p) for p in parts]  # a bad field costs its entry (the importer's loop), not the file


def add_user_blocks(builder: ConversationBuilder, content: Any, timestamp: datetime | None,
                    on_text: Callable[[str], object] | None = None) -> None:
    """A user message's content into `builder`: each tool_result as the return of its call, each
    image as the image marker, each text block through `on_text` (the importer judges whose words it
    holds), by default as the person's."""
    blocks = [{"type": "text", "text": content}] if isinstance(content, str) else content or []
    for block in blocks:
        kind = block.get("type")
        if kind == "tool_result":
            builder.add_tool_return(block["tool_use_id"], text_of_blocks(block.get("content")), timestamp,
                                    failed=bool(block.get("is_error")))
        elif kind == "text":
            text = block.get("text") or ""
            if on_text is None:
                builder.add_user_text(text, timestamp)
            else:
                on_text(text)
        elif kind == "image":
            builder.add_user_text(IMAGE_PLACEHOLDER, timestamp)
