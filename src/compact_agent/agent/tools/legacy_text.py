"""Text without a byte-order mark in encodings that are not UTF-8 nor 8-bit: Shift-JIS, EUC-JP and
GBK (Japanese and Chinese files from before UTF-8), and UTF-16 written without a mark.

Shift-JIS, EUC-JP and GBK write each character past ASCII as two bytes of 0x80 or more, so in such
text most of those bytes stand next to another one (a word is a run of them). Latin-1 and
Windows-1252 text puts an accented letter between ASCII letters, one byte alone, and text in
another 8-bit alphabet (Cyrillic in Windows-1251) makes words of any length, which these encodings
seldom read whole. So a text is taken for one of them only when it is not mostly UTF-8, more than
half of its bytes past ASCII stand next to another, and it reads in that encoding, byte for byte
back, as Japanese or Chinese characters (kana, ideographs, full-width marks). Japanese has kana
in almost any sentence and Chinese has none: that tells Shift-JIS or EUC-JP from GBK, which all
three can read of the same bytes.

UTF-16 without a mark, of text mostly in Latin letters, has a NUL in every other byte: it is
taken for that when the NULs all stand on one side, at least every other character has one, and
what it reads as holds no control character a text would not have.
"""

from __future__ import annotations

import codecs
import re

__all__ = ["cjk_codec", "utf16_codec"]

_CJK = ("cp932", "euc_jp", "gbk")  # Shift-JIS as Windows writes it (cp932), EUC-JP, GBK
_JAPANESE = ("cp932", "euc_jp")
_SAMPLE = 1 << 16  # bytes looked at for the shape of the text; the whole is still decoded
_HIGH_RUN = re.compile(rb"[\x80-\xff]+")
_NOT_ASCII = re.compile(r"[^\x00-\x7f]")
_KANA = re.compile(r"[\u3040-\u30ff]")
# Kana, ideographs and full-width marks; not the half-width katakana Shift-JIS gives the bytes
# 0xA1-0xDF, which EUC-JP or GBK text read as Shift-JIS turns into.
_CJK_CHAR = re.compile(r"[\u3000-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\uff01-\uff60\uffe0-\uffe6]")
_CONTROL = re.compile(r"[\x00-\x08\x0e-\x1f\x7f\ufffe\uffff]")


def _decoded(raw: bytes, codec: str, head: bool) -> str | None:
    """`raw` read strictly in `codec` (a `head` may end inside a character), None when it does not
    read so or, whole, does not give the same bytes back."""
    try:
        text = codecs.getincrementaldecoder(codec)().decode(raw, final=not head)
    except UnicodeDecodeError:
        return None
    if not head and text.encode(codec, "strict") != raw:
        return None
    return text


def cjk_codec(raw: bytes, *, head: bool = False) -> str | None:
    """The codec ("cp932", "euc_jp" or "gbk") text that is not UTF-8 is in, or None."""
    sample = raw[:_SAMPLE]
    high = paired = 0
    for run in _HIGH_RUN.finditer(sample):
        n = run.end() - run.start()
        high += n
        paired += n if n > 1 else 0
    if not high or paired * 2 <= high:
        return None
    strays = len(sample.decode("utf-8", "surrogateescape")) - len(sample.decode("utf-8", "ignore"))
    if strays * 2 <= high:  # mostly UTF-8 with a few bytes that are not: UTF-8
        return None
    read: dict[str, tuple[int, int, int]] = {}  # codec: (characters past ASCII, kana, CJK characters)
    for codec in _CJK:
        if (text := _decoded(raw, codec, head)) is None:
            continue
        wide = len(_NOT_ASCII.findall(text))
        cjk = len(_CJK_CHAR.findall(text))
        if wide and cjk * 10 >= wide * 9:
            read[codec] = (wide, len(_KANA.findall(text)), cjk)
    japanese = [c for c in _JAPANESE if c in read and read[c][1] * 10 >= read[c][0]]
    if japanese:
        return max(japanese, key=lambda c: read[c][1])
    if "gbk" in read:
        return "gbk"
    return next((c for c in _JAPANESE if c in read), None)  # Japanese in ideographs alone


def utf16_codec(raw: bytes, *, head: bool = False) -> str | None:
    """"utf-16-le" or "utf-16-be" for text in UTF-16 without a mark, or None."""
    if len(raw) < 4 or (len(raw) % 2 and not head):
        return None
    even, odd = raw[0::2], raw[1::2]
    for codec, nuls, other in (("utf-16-le", odd, even), ("utf-16-be", even, odd)):
        if b"\0" in other or nuls.count(0) * 2 < len(nuls):
            continue
        text = _decoded(raw, codec, head)
        if text and not _CONTROL.search(text):
            return codec
    return None
