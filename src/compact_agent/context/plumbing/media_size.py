"""What an attachment counts in a request: an image a flat figure, a document by its size.

An image costs about the same whatever its bytes (providers scale it down: `IMAGE_TOKENS`). A
document does not: a 90,000-character text file attached as `BinaryContent` is about 22,000 tokens
of text to every provider, and was counted as one image (1,600), so it went out over a 16K window
with nothing said. A text document (`text/*`, JSON, XML, YAML) counts as its decoded text, by the
estimate every text gets (characters / 4, calibrated like any text); a PDF by its pages
(`PDF_PAGE_TOKENS` each), counted in the file (`pdf_pages`); any other document (a Word or Excel
file) as if its bytes were text, and so is a PDF whose pages cannot be counted. Audio and video stay
at the image's flat figure, as before.
"""

from __future__ import annotations

import re
import zlib
from collections.abc import Sequence
from typing import Any

from pydantic_ai.messages import BinaryContent, ModelMessage, UserPromptPart

#: An image, whatever its size: Anthropic's vision guide puts an image at (width x height) / 750 tokens
#: and scales larger ones down to about 1.15 megapixels, about 1,600 tokens; OpenAI's high-detail
#: 512-pixel tiles come to 765 for 1024x1024. The larger figure: an estimate must not under-count.
IMAGE_TOKENS = 1_600

#: A PDF page. Anthropic's PDF support guide counts each page as its extracted text, "typically
#: 1,500-3,000 tokens per page depending on content density", plus the page as an image at the image
#: rates (`IMAGE_TOKENS` at most); OpenAI's file inputs give the model a page's extracted text and an
#: image of it too; Gemini's document guide counts a page as one image, 258 tokens. The top of the
#: largest: an estimate must not under-count, and a provider refuses a request over its window.
PDF_PAGE_TOKENS = 3_000 + IMAGE_TOKENS

#: Bytes of a PDF searched for its pages; past it (or where none is found) its bytes count as text.
PDF_SCAN_BYTES = 64 * 1024 * 1024
#: What one compressed object stream may inflate to while its pages are counted.
OBJECT_STREAM_CAP = 16 * 1024 * 1024

_TEXT_TYPES = ("application/json", "application/xml", "application/x-yaml", "application/yaml",
               "application/javascript", "application/x-javascript", "application/x-python",
               "application/sql", "application/x-sh", "application/toml", "application/csv")
_PAGE = re.compile(rb"/Type\s*/Page(?![A-Za-z0-9])")
_OBJECT_STREAM = re.compile(rb"/Type\s*/ObjStm\b[^\0]{0,2000}?stream\r?\n", re.DOTALL)


def is_text_document(media_type: str) -> bool:
    """Whether a document of `media_type` is text a provider reads as text (`text/plain`, CSV,
    Markdown, HTML, JSON, XML, YAML, source code)."""
    kind = media_type.split(";", 1)[0].strip().lower()
    return kind.startswith("text/") or kind in _TEXT_TYPES or kind.endswith(("+json", "+xml"))


def pdf_pages(data: bytes) -> int | None:
    """The pages of the PDF `data`: its page objects, those in its compressed object streams too
    (PDF 1.5 on may keep every page object there). None where none is found (not a PDF, encrypted,
    damaged, or larger than `PDF_SCAN_BYTES`)."""
    if len(data) > PDF_SCAN_BYTES or not data[:1024].lstrip().startswith(b"%PDF-"):
        return None
    pages = len(_PAGE.findall(data))
    view = memoryview(data)  # each stream read in place, not copied
    for found in _OBJECT_STREAM.finditer(data):
        pages += len(_PAGE.findall(_inflated(view[found.end():])))
    return pages or None


def _inflated(stream: memoryview, chunk: int = 65_536) -> bytes:
    """What a Flate stream at the start of `stream` inflates to, up to `OBJECT_STREAM_CAP` (fed a
    chunk at a time: what follows the stream is not read); b"" where it is no Flate stream."""
    inflate, out, at = zlib.decompressobj(), bytearray(), 0
    try:
        while not inflate.eof and at < len(stream) and len(out) < OBJECT_STREAM_CAP:
            out += inflate.decompress(stream[at:at + chunk], OBJECT_STREAM_CAP - len(out))
            at += chunk
    except zlib.error:
        return b""
    return bytes(out)


def document_size(item: BinaryContent) -> tuple[int, int]:
    """(characters, tokens) an attachment counts: a text document its decoded text's characters,
    a PDF its pages' tokens, another document the characters its bytes would be as text, an image
    (audio, video) `IMAGE_TOKENS`."""
    if is_text_document(item.media_type):
        return len(item.data.decode("utf-8", errors="replace")), 0
    if item.is_image or item.is_audio or item.is_video:
        return 0, IMAGE_TOKENS
    pages = pdf_pages(item.data) if item.format == "pdf" or item.media_type == "application/pdf" else None
    if pages is not None:
        return 0, pages * PDF_PAGE_TOKENS
    return len(item.data), 0


def is_document(item: Any) -> bool:
    """Whether `item`, an item of a message's content, is a document (not an image, audio or video)."""
    return isinstance(item, BinaryContent) and not (item.is_image or item.is_audio or item.is_video)


def document_name(item: Any, size: bool = True) -> str:
    """How a note names a document: its media type, the identifier its sender gave it (pydantic-ai
    makes up a hash for one given none: no name a user knows) and (`size`) its extent."""
    kind = str(getattr(item, "media_type", "") or "unknown type")
    ident = getattr(item, "_identifier", getattr(item, "identifier", None))
    extent = document_extent(item) if isinstance(item, BinaryContent) and size else None
    return f"{kind}{f' {ident!r}' if ident else ''}{f', {extent}' if extent else ''}"


def document_extent(item: BinaryContent) -> str:
    """A document's size as it counts: a PDF's pages where they are counted (`document_size`), else its bytes."""
    pages = pdf_pages(item.data) if item.format == "pdf" or item.media_type == "application/pdf" else None
    return f"{pages:,} page{'s' if pages > 1 else ''}" if pages else f"{len(item.data):,} bytes"



def document_asked_at(messages: Sequence[ModelMessage]) -> int | None:
    """Where the user's newest message is (tool_content.newest_asked), if it carries a document: the
    message the model is asked about. None else."""
    from .tool_content import newest_asked

    at = newest_asked(messages)
    if at is None:
        return None
    prompts = [p for p in messages[at].parts if isinstance(p, UserPromptPart) and not isinstance(p.content, str)]
    return at if any(is_document(x) for p in prompts for x in p.content) else None
