"""An MCP server's tool result as the model gets it, shaped like our own tools' results.

The MCP client hands a result over as text, JSON data, files (`BinaryContent`: an image, audio, an
embedded binary resource) or a list of them. What our own tools would never send is not sent:

* every text in it (a text part, the strings of JSON data, its words of a failure) as a terminal
  leaves it, as the bash tool's output is (`Screen`, tools/screen.py): without escape sequences, the
  7-bit and the 8-bit forms (a title, a clipboard write, a screen cleared), with the line `Screen`
  says what was removed in first; then without the API key, and with the marker of the user's
  words marked as a copy (`copied_instead`), whatever else the result carries;
* an image only to a model that takes images (`images`), of a kind the providers take (PNG, JPEG,
  GIF, WEBP) and within `image_max_bytes`, as read_file sends one; otherwise a line saying what it
  was and why it was not sent (a text-only provider refuses the request that carries it, and every
  later one of the session, since the history keeps it);
* any other file (audio, an embedded binary resource) as a line saying what it was, never its bytes;
* the texts joined into one, so a long one is moved to a file by the tool-result budget as any
  tool's is, the text beside an image included: the budget measures, spills and previews the text
  beside a result's files and keeps the files after its preview (layers/budget.py), so an image is
  sent beside text of any length, as its preview.
"""

from __future__ import annotations

import dataclasses
import json
from dataclasses import dataclass
from typing import Any

from pydantic_ai.messages import BinaryContent, ToolReturn

from ..safety.permissions import copied_instead
from ..tools.base import tool_text
from ..tools.images import NAMES, ImageInfo, dimensions
from ..tools.screen import Screen

#: The end of `Screen.note` that speaks of a command's output (`| cat -v`), not of a server's text.
_CAT_V = "; `| cat -v` shows every byte]"


@dataclass(frozen=True)
class Media:
    """What a result's files may be, for the model of the moment."""

    sees_images: bool = False
    max_bytes: int = 5 * 1024 * 1024


def media_of(env: Any) -> Media:
    """What the session's tools' environment (`ToolEnv`) says of files now: the model of the
    moment (`/model` changes it) and the settings."""
    return Media(bool(env.images), int(env.settings.image_max_bytes))


def shaped(result: Any, media: Media) -> Any:
    """`result` of an MCP tool call as the model gets it (see the module's docstring)."""
    if isinstance(result, ToolReturn):  # a tool with an app: what the model gets is its return value
        return dataclasses.replace(result, return_value=shaped(result.return_value, media))
    shown = _Shown()
    items = result if isinstance(result, list) else [result]
    if not any(isinstance(item, BinaryContent) for item in items):
        clean = _clean(result, shown)
        if not shown.note():  # nothing removed: the text or the data as it came, cleaned
            return clean
        as_text = clean if isinstance(clean, str) else json.dumps(clean, ensure_ascii=False)
        return f"{shown.note()}\n{as_text}"
    texts = [_text(item, shown) for item in items if not isinstance(item, BinaryContent)]
    texts.insert(0, shown.note())  # what they lost, first, as the bash tool's result says it
    kept: list[BinaryContent] = []
    for item in items:
        if isinstance(item, BinaryContent):
            why = _not_sent(item, media)
            if why is None:
                kept.append(item)
            else:
                texts.append(why)
    text = "\n".join(t for t in texts if t)
    if not kept:
        return text
    return [text, *kept] if text else kept


def cleaned(text: str) -> str:
    """A server's text (a result's, or its words of a failure) as a terminal leaves it, what was
    removed said first, without the key, its copy of the user's marker marked."""
    shown = _Shown()
    text = shown.text(text)
    return _safe("\n".join(t for t in (shown.note(), text) if t))


class _Shown:
    """A server's texts as a terminal leaves them (`Screen`), what they lost counted over one result."""

    def __init__(self) -> None:
        self._lost = Screen()  # fed nothing: its counts are the texts', for its `note`

    def text(self, text: str) -> str:
        """`text` as `Screen` leaves a command's output. A NUL makes `Screen` give the rest as it comes
        (binary output); in a server's text it is a character like any other, so each piece between
        them is read apart and the NULs kept."""
        pieces = []
        for piece in text.split("\0"):
            screen = Screen()
            data = piece.encode("utf-8", "surrogatepass")
            pieces.append((screen.feed(data) + screen.end()).decode("utf-8", "surrogatepass"))
            self._lost.escapes += screen.escapes
            self._lost.redraws += screen.redraws
            self._lost.breaks += screen.breaks
        return "\0".join(pieces)

    def data(self, value: Any) -> Any:
        """JSON data with each string in it (a key, a value) as `text` leaves it."""
        if isinstance(value, str):
            return self.text(value)
        if isinstance(value, dict):
            return {self.data(k): self.data(v) for k, v in value.items()}
        if isinstance(value, (list, tuple)):
            return [self.data(v) for v in value]
        return value

    def note(self) -> str:
        """`Screen`'s line of what was removed or rewritten ('' when nothing was), without its advice
        for a command's output."""
        note = self._lost.note()
        return note[: -len(_CAT_V)] + "]" if note.endswith(_CAT_V) else note


def _safe(text: str) -> str:
    """`text` without the key, its copy of the user's marker marked."""
    return tool_text(copied_instead(text, set()))


def _clean(value: Any, shown: _Shown) -> Any:
    """Text or JSON data as a terminal leaves it (`shown` counts what it lost), without the key and
    with the user's marker marked as a copy."""
    if isinstance(value, str):
        return _safe(shown.text(value))
    value = shown.data(value)
    try:
        dumped = json.dumps(value, ensure_ascii=False)
    except (TypeError, ValueError):
        return _safe(shown.text(str(value)))  # not plain data: its text, cleaned
    clean = _safe(dumped)  # the marker has nothing JSON escapes
    return value if clean == dumped else json.loads(clean)


def _text(value: Any, shown: _Shown) -> str:
    """A part beside files as text: a string as it is, data as its JSON, cleaned either way."""
    clean = _clean(value, shown)
    return clean if isinstance(clean, str) else json.dumps(clean, ensure_ascii=False)


def _described(item: BinaryContent) -> str:
    """`a PNG image, 640×480, 12,345 bytes`, `an application/octet-stream file, 300,000 bytes`."""
    size = len(item.data)
    if item.media_type in NAMES:
        width, height = dimensions(item.data[:65_536], item.media_type) or (None, None)
        return "a " + ImageInfo(item.media_type, width, height, size).describe()
    kind = "image" if item.is_image else "audio" if item.is_audio else "file"
    return f"{'an' if item.media_type[:1] in 'aeiou' else 'a'} {item.media_type} {kind}, {size:,} bytes"


def _not_sent(item: BinaryContent, media: Media) -> str | None:
    """Why file `item` is not sent to the model, as the line the model gets instead; None to send it."""
    what = _described(item)
    if item.media_type not in NAMES:
        return f"[{what} came with this result; not sent: only PNG, JPEG, GIF and WEBP images go to the model]"
    if not media.sees_images:
        return f"[{what} came with this result; this model cannot see images, so it was not sent]"
    if len(item.data) > media.max_bytes:
        return (f"[{what} came with this result: over the {media.max_bytes / 1_048_576:g} MB limit for images "
                "(image_max_bytes); not sent]")
    return None
