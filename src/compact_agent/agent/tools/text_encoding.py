"""How a file's bytes become the text the model reads, and how its edits become bytes again.

A file that starts with a byte-order mark is text in the encoding the mark names (UTF-8, UTF-16
or UTF-32, either byte order), whatever NUL bytes UTF-16 puts in it. Without a mark, a NUL byte
in the first SNIFF_BYTES makes it binary, unless it is UTF-16 whose every other byte is the NUL
(legacy_text.py); text that is not UTF-8 is Shift-JIS, EUC-JP or GBK when it reads as one of those
(legacy_text.py says how that is told from Latin-1), else an old 8-bit encoding, read as
Windows-1252 when it uses the bytes 0x80-0x9F that only Windows-1252 gives letters to, else as
Latin-1 (which reads any byte). Writing back uses the same encoding and the same mark, so an
edit changes the lines it changes and nothing else: a UTF-16 file stays UTF-16.

Command output is not a file: it has no mark, and a valid UTF-8 sequence in it is UTF-8 while a
stray byte is most likely Windows-1252 (a Latin-1 file catted, an old tool's message). `decode_output`
reads it that way, byte by byte, and says whether it had to.
"""

from __future__ import annotations

import codecs
import re
from dataclasses import dataclass
from pathlib import Path

from .legacy_text import cjk_codec, utf16_codec

SNIFF_BYTES = 8_192
STRAY_BYTES = "compact_agent.stray_bytes"  # the codec error handler `decode_output` reads with

__all__ = ["SNIFF_BYTES", "UTF8", "Encoding", "decode", "decode_output", "escaped_bytes", "shown", "sniff", "sniff_file"]


@dataclass(frozen=True)
class Encoding:
    """A file's text encoding: the codec of the bytes after the mark, and the mark itself."""

    codec: str  # a Python codec name: "utf-8", "utf-16-le", "utf-32-be", "cp1252", "latin-1"
    bom: bytes = b""
    name: str = "UTF-8"  # as the model and the user are told it

    @property
    def label(self) -> str:
        return f"{self.name} with a byte-order mark" if self.bom else self.name

    @property
    def wide(self) -> bool:
        """UTF-16 or UTF-32: a newline is not the one byte 0x0A, so lines are not split on bytes."""
        return self.codec.startswith(("utf-16", "utf-32"))

    @property
    def iconv(self) -> str:
        """The name `iconv -f` knows this encoding by (for a command that shows raw bytes of it)."""
        return self.name.replace(" ", "")

    @property
    def cjk(self) -> bool:
        """Shift-JIS, EUC-JP or GBK: text the model reads correctly, which other tools read as bytes."""
        return self.codec in _CJK_NAMES

    @property
    def errors(self) -> str:
        """UTF-8 without a mark keeps a stray byte as a surrogate escape, to write it back as it was."""
        return "surrogateescape" if self.codec == "utf-8" and not self.bom else "strict"

    @property
    def stream(self) -> tuple[str, str]:
        """The codec and error handler that read the whole file as a text stream, mark skipped, a
        line at a time (grep): without a mark, UTF-8 with any other byte read as Windows-1252."""
        if self.codec == "utf-8" and not self.bom:
            return "utf-8", STRAY_BYTES
        if not self.bom:
            return self.codec, "replace"
        return ("utf-8-sig" if self.codec == "utf-8" else self.codec[:6]), "replace"

    def encode(self, text: str) -> bytes:
        """`text` as the file's bytes, mark first. UnicodeEncodeError when a character has no byte
        in this encoding (a "→" in a Latin-1 file): the caller refuses rather than change encoding."""
        return self.bom + text.encode(self.codec, self.errors)


_CJK_NAMES = {"cp932": "Shift-JIS", "euc_jp": "EUC-JP", "gbk": "GBK"}
UTF8 = Encoding("utf-8")
LATIN1 = Encoding("latin-1", name="Latin-1")
CP1252 = Encoding("cp1252", name="Windows-1252")

# UTF-32 LE first: its mark starts with UTF-16 LE's (FF FE), followed by 00 00.
_MARKS = (
    (codecs.BOM_UTF32_LE, "utf-32-le", "UTF-32 LE"),
    (codecs.BOM_UTF32_BE, "utf-32-be", "UTF-32 BE"),
    (codecs.BOM_UTF8, "utf-8", "UTF-8"),
    (codecs.BOM_UTF16_LE, "utf-16-le", "UTF-16 LE"),
    (codecs.BOM_UTF16_BE, "utf-16-be", "UTF-16 BE"),
)


# A character UTF-8 writes in two to four bytes. Latin-1 text hardly ever holds one by chance (it
# would take "Ã©"), so a file that does is UTF-8 with a few stray bytes, not an 8-bit encoding.
_MULTIBYTE = re.compile(
    rb"[\xc2-\xdf][\x80-\xbf]|[\xe0-\xef][\x80-\xbf]{2}|[\xf0-\xf4][\x80-\xbf]{3}")


def _unmarked(raw: bytes, *, head: bool = False) -> Encoding:
    """The encoding of text without a mark: UTF-8 when it is, or when it holds UTF-8 characters
    besides bytes that are not (those are kept as they are); else an 8-bit encoding: Windows-1252
    when it uses 0x80-0x9F (control codes in Latin-1, curly quotes and the euro sign there) and
    reads whole that way, else Latin-1. A `head` may end inside a character. Before those, text
    most of whose bytes past ASCII are not UTF-8 and that reads as Shift-JIS, EUC-JP or GBK is that."""
    try:
        codecs.getincrementaldecoder("utf-8")().decode(raw, final=not head)
    except UnicodeDecodeError:
        if codec := cjk_codec(raw, head=head):
            return Encoding(codec, name=_CJK_NAMES[codec])
        if _MULTIBYTE.search(raw):
            return UTF8
        if any(0x80 <= b <= 0x9F for b in raw):
            try:
                raw.decode("cp1252")
            except UnicodeDecodeError:
                return LATIN1
            return CP1252
        return LATIN1
    return UTF8


def sniff(head: bytes) -> Encoding | None:
    """The encoding a file starting with `head` (up to SNIFF_BYTES of it) is read in, or None when
    it is binary: a NUL byte without a mark, or a mark the bytes after it do not follow. `decode`
    may still find that a file without a mark is not UTF-8 past its head."""
    for mark, codec, name in _MARKS:
        if head.startswith(mark):
            try:  # not final: the head may end inside a character
                text = codecs.getincrementaldecoder(codec)().decode(head[len(mark):], final=False)
            except UnicodeDecodeError:
                return None
            return None if "\0" in text else Encoding(codec, mark, name)
    if b"\0" not in head:
        return _unmarked(head, head=True)
    if wide := utf16_codec(head, head=True):
        return Encoding(wide, name=wide[:6].upper() + " " + wide[-2:].upper())
    return None


def sniff_file(p: Path) -> Encoding | None:
    with p.open("rb") as f:
        return sniff(f.read(SNIFF_BYTES))


def decode(raw: bytes, enc: Encoding) -> tuple[str, Encoding] | None:
    """A whole file's bytes as text, and the encoding that read them; `enc` is what `sniff` said of
    its head. None when a file with a mark is not valid in the encoding the mark names. A byte of
    a UTF-8 file that is not UTF-8 is kept as a surrogate escape (`shown` makes it U+FFFD), so
    writing the text back gives the byte back. UTF-16 without a mark is None when the whole file
    does not read as that, as a file with a mark is."""
    if enc.bom or enc.wide:
        try:
            text = raw[len(enc.bom):].decode(enc.codec)
        except UnicodeDecodeError:
            return None
        return None if "\0" in text else (text, enc)
    enc = _unmarked(raw)
    return raw.decode(enc.codec, enc.errors), enc


_ESCAPED = re.compile("[\udc80-\udcff]")


def shown(text: str) -> str:
    """Text as the model reads it: a byte kept as a surrogate escape is U+FFFD."""
    return _ESCAPED.sub("\ufffd", text)


def escaped_bytes(text: str) -> int:
    return len(_ESCAPED.findall(text))


def _stray_byte(e: UnicodeError) -> tuple[str, int]:
    """Codec error handler: each byte that is not part of valid UTF-8 read as Windows-1252, or as
    Latin-1 for the five bytes Windows-1252 leaves undefined."""
    assert isinstance(e, UnicodeDecodeError)
    byte = e.object[e.start:e.start + 1]
    try:
        return byte.decode("cp1252"), e.start + 1
    except UnicodeDecodeError:
        return byte.decode("latin-1"), e.start + 1


codecs.register_error(STRAY_BYTES, _stray_byte)


def decode_output(data: bytes) -> tuple[str, bool]:
    """Command output as text: valid UTF-8 as UTF-8, any other byte as its Windows-1252 character.
    The flag says whether some byte was not UTF-8."""
    try:
        return data.decode("utf-8"), False
    except UnicodeDecodeError:
        return data.decode("utf-8", STRAY_BYTES), True
