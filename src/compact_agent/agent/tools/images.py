"""Images for the model: PNG, JPEG, GIF and WEBP files, recognised by their first bytes.

A model that takes images gets the file itself (pydantic-ai's `BinaryContent` in the tool result,
which each provider adapter sends as its own image part: an `image_url` data URL for OpenAI-style
APIs, a base64 `image` block for Anthropic). A model that does not gets one line instead, saying
what the file is (kind, width × height, size) and that it cannot see it: sending the bytes would
make the provider refuse the whole request. Which models take images is the model registry's
`images` flag, overridden by the `images` setting (an unknown model is taken as text-only).

The size is read from the file's header with the standard library alone (no imaging package). A
file over `image_max_bytes` (5 MB by default: Anthropic refuses larger images, and a request
carries the image base64-encoded, a third larger again) is refused in one line.
"""

from __future__ import annotations

import struct
from dataclasses import dataclass
from pathlib import Path

from pydantic_ai.messages import BinaryContent

from ..safety.checked_open import read_checked
from .base import ToolFailure

EXTENSIONS = (".png", ".jpg", ".jpeg", ".gif", ".webp")
NAMES = {"image/png": "PNG", "image/jpeg": "JPEG", "image/gif": "GIF", "image/webp": "WEBP"}
HEAD_BYTES = 64 * 1024  # enough for any header we read (a JPEG's frame may follow large metadata)


@dataclass(frozen=True)
class ImageInfo:
    media_type: str
    width: int | None
    height: int | None
    size: int  # bytes

    @property
    def kind(self) -> str:
        return NAMES.get(self.media_type, "image")

    def describe(self) -> str:
        """`PNG image, 640×480, 12,345 bytes`."""
        dims = f"{self.width}×{self.height}, " if self.width and self.height else ""
        return f"{self.kind} image, {dims}{self.size:,} bytes"


def media_type(head: bytes) -> str | None:
    """The image type the first bytes say, or None (not one we send)."""
    if head.startswith(b"\x89PNG\r\n\x1a\n"):
        return "image/png"
    if head.startswith(b"\xff\xd8\xff"):
        return "image/jpeg"
    if head[:6] in (b"GIF87a", b"GIF89a"):
        return "image/gif"
    if head[:4] == b"RIFF" and head[8:12] == b"WEBP":
        return "image/webp"
    return None


def dimensions(head: bytes, media: str) -> tuple[int, int] | None:
    """(width, height) from the header, or None when it cannot be read there."""
    try:
        if media == "image/png" and head[12:16] == b"IHDR":
            w, h = struct.unpack(">II", head[16:24])
            return w, h
        if media == "image/gif":
            w, h = struct.unpack("<HH", head[6:10])
            return w, h
        if media == "image/webp":
            return _webp(head)
        if media == "image/jpeg":
            return _jpeg(head)
    except struct.error:
        return None
    return None


def _webp(head: bytes) -> tuple[int, int] | None:
    chunk = head[12:16]
    if chunk == b"VP8X":
        w = int.from_bytes(head[24:27], "little") + 1
        h = int.from_bytes(head[27:30], "little") + 1
        return w, h
    if chunk == b"VP8L" and head[20:21] == b"\x2f":
        bits = int.from_bytes(head[21:25], "little")
        return (bits & 0x3FFF) + 1, ((bits >> 14) & 0x3FFF) + 1
    if chunk == b"VP8 " and head[23:26] == b"\x9d\x01\x2a":
        w, h = struct.unpack("<HH", head[26:30])
        return w & 0x3FFF, h & 0x3FFF
    return None


def _jpeg(head: bytes) -> tuple[int, int] | None:
    """Walk the markers to the first start-of-frame (SOF0-SOF15 but DHT, JPG, DAC)."""
    i = 2
    while i + 9 < len(head):
        if head[i] != 0xFF:
            return None
        marker = head[i + 1]
        if marker == 0xFF:  # fill byte
            i += 1
            continue
        if marker in (0xD8, 0x01) or 0xD0 <= marker <= 0xD7:  # no length
            i += 2
            continue
        (length,) = struct.unpack(">H", head[i + 2:i + 4])
        if 0xC0 <= marker <= 0xCF and marker not in (0xC4, 0xC8, 0xCC):
            h, w = struct.unpack(">HH", head[i + 5:i + 9])
            return w, h
        i += 2 + length
    return None


def sniff(path: Path) -> ImageInfo | None:
    """What image `path` is, from its first bytes; None when it is not one (or cannot be read)."""
    try:
        size = path.stat().st_size
        with path.open("rb") as f:
            head = f.read(HEAD_BYTES)
    except OSError:
        return None
    media = media_type(head)
    if media is None:
        return None
    dims = dimensions(head, media)
    return ImageInfo(media, dims[0] if dims else None, dims[1] if dims else None, size)


def looks_like_image_name(name: str) -> bool:
    return name.lower().endswith(EXTENSIONS)


def image_content(shown: str, path: Path, info: ImageInfo, *, sees: bool, max_bytes: int
                  ) -> str | list[str | BinaryContent]:
    """What the model gets for image `path`: a line naming it and the image itself when it `sees`
    images, else a line saying what it is and that it cannot see it; over `max_bytes`, a refusal."""
    if info.size > max_bytes:
        return ToolFailure(f"{shown} is a {info.describe()}: over the {max_bytes / 1_048_576:g} MB limit for "
                           "images (image_max_bytes); not sent")
    if not sees:
        return (f"{shown} is a {info.describe()}; this model cannot see images, so it was not sent (set "
                "images = true if it can)")
    data = read_checked(path)  # opened as the fence checked it (safety/checked_open.py)
    return [f"{shown}: {info.describe()}", BinaryContent(data, media_type=info.media_type, identifier=_ident(shown))]


def _ident(shown: str) -> str:
    """An identifier the provider adapters name the file by ("See file <id>."): its name, made safe."""
    name = Path(shown).name
    return "".join(c if c.isalnum() or c in "._-" else "_" for c in name)[:80] or "image"
