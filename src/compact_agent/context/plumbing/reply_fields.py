"""A reply's naming fields as text, whatever the server sent in their place.

A chat-completions reply's `model` and `id` (Anthropic's `model` and `id` alike) become the
response's `model_name` and `provider_response_id` as they came. A proxy or a local server that sent
a number or an object there gave a response that pydantic's serializer would not write as its type
says: the history saved with it could not be read back, and the conversation lost that answer on
the next resume. What the server said is kept, as text (`5` as "5"), at most 200 characters of it.
"""

from __future__ import annotations

import dataclasses
import json
from typing import Any

from pydantic_ai.messages import ModelResponse

__all__ = ["text_fields"]

#: The fields of a response that are text or nothing, and come from what the server said.
_TEXT = ("model_name", "model_id", "provider_name", "provider_url", "provider_response_id")
_MOST = 200


def text_fields(response: ModelResponse) -> ModelResponse:
    """`response`, or a copy whose text fields that held something else hold it as text."""
    odd = {name: value for name in _TEXT
           if (value := getattr(response, name, None)) is not None and not isinstance(value, str)}
    if not odd:
        return response
    texts: dict[str, Any] = {name: _as_text(value) for name, value in odd.items()}
    return dataclasses.replace(response, **texts)


def _as_text(value: object) -> str:
    try:
        text = json.dumps(value, ensure_ascii=False, default=str)
    except (ValueError, TypeError, RecursionError):  # a value nested past the encoder's depth, a loop
        text = type(value).__name__
    return text[:_MOST]
