"""The images of the user's latest message, kept through a compaction.

A summary is written without images, and the model may still be working on what they show: the
compaction message carries the images of the user's latest message when that message is
summarised (the compactor keeps the newest that fit an eighth of the room, as the results in use),
in a part of its own after its text, headed by `IMAGES_HEAD`. A later compaction finds them there
again (`latest_images`); an older message's images stay in the archive.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from pydantic_ai.messages import BinaryContent, ImageUrl, ModelMessage, ModelRequest, UserPromptPart

from .summary import compaction_part, is_synthetic_text

IMAGES_HEAD = "[compact-agent: the images the user attached to their latest message, kept through the compaction]"
"""The first item of the part a compaction message carries those images in (`latest_images`)."""


def _is_image(item: object) -> bool:
    return isinstance(item, ImageUrl) or (isinstance(item, BinaryContent) and item.is_image)


def latest_images(messages: Sequence[ModelMessage], typed: Callable[[str], bool] | None = None) -> list[Any] | None:
    """The images of the user's latest message in `messages`: those it was sent with, or those an
    earlier compaction carried for it (`IMAGES_HEAD`); [] when that message has none; None when
    `messages` holds no message of the user's. Our own messages, and texts `typed` says no person
    typed (a harness's reminders), are not the user's."""
    for m in reversed(messages):
        if not isinstance(m, ModelRequest):
            continue
        for p in reversed(m.parts):
            if not isinstance(p, UserPromptPart):
                continue
            if isinstance(p.content, str):
                if compaction_part(p):
                    return []  # the user's latest words are the ones it carries, without images
                if is_synthetic_text(p.content) or (typed is not None and not typed(p.content)):
                    continue
                return []
            items = list(p.content)
            if items and items[0] == IMAGES_HEAD:
                return [c for c in items[1:] if _is_image(c)]
            return [c for c in items if _is_image(c)]
    return None


def with_images(message: ModelRequest, images: Sequence[Any]) -> ModelRequest:
    """A compaction message that also carries `images` (the user's latest message's), after its text."""
    if not images:
        return message
    return ModelRequest(parts=[*message.parts, UserPromptPart([IMAGES_HEAD, *images])], metadata=message.metadata)


def kept_images(summarized: Sequence[ModelMessage], tail: Sequence[ModelMessage], typed: Callable[[str], bool] | None,
                budget: int, each: int) -> list[Any]:
    """The images of the user's latest message, when the compaction replaces it (its text is
    carried verbatim; they would be gone): the newest of them that fit `budget` tokens at `each`
    tokens an image (what an image costs, whatever its size). None when the latest message is kept
    verbatim in `tail`. A summary is written without images, and the model may still be working on
    what they show."""
    if latest_images(tail, typed) is not None:
        return []
    images = latest_images(summarized, typed) or []
    fit = min(len(images), budget // max(1, each))
    return images[len(images) - fit:]
