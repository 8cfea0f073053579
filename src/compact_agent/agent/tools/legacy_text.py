"""Text without a byte-order mark in encodings that are not UTF-8 nor 8-bit: Shift-JIS, EUC-JP and
GBK (Japanese and Chinese files from before UTF-8), and UTF-16 written without a mark.

Shift-JIS, EUC-JP and GBK write each character past ASCII as two bytes of 0x80 or more, so in such
text most of those bytes stand next to another one (a word is a run of them). Latin-1 and
Windows-1252 text puts an accented letter between ASCII letters, one byte alone, and text in
another 8-bit alphabet (Cyrillic in Windows-1251) makes words of any length, which these encodings
seldom read whole. So a text is taken for one of them only when it is not mostly UTF-8, more than
half of its bytes past ASCII stand next to another, and it reads in that encoding, byte for byte
back, as Japanese or Chinese characters (kana, ideographs, full-width marks) written the way such
text is (`_usual`): GBK reads nearly any Latin-1 text whose lone accented letters each stand before
an ASCII letter, but as characters outside GB2312 or ideographs hardly ever used. Japanese has kana
in almost any sentence and Chinese has none: that tells Shift-JIS or EUC-JP from GBK, which all
three can read of the same bytes.

UTF-16 without a mark, of text mostly in Latin letters, has a NUL in every other byte: it is
taken for that when the NULs all stand on one side, at least every other character has one, and
what it reads as holds no control character a text would not have.
"""

from __future__ import annotations

import codecs
import re
import unicodedata
from collections import Counter

__all__ = ["cjk_codec", "foreign_to_cjk", "utf16_codec"]

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


def _usual(text: str, codec: str) -> bool:
    """Whether `text`, read in `codec`, is written the way Chinese or Japanese is: nearly every
    character past ASCII two bytes of the national standard (GB2312 for GBK: both bytes 0xA1 or
    more; JIS X 0208 for Shift-JIS and EUC-JP), and most of them its everyday part: punctuation,
    full-width letters, kana and the first level of ideographs (the 3,755 or 2,965 most used).
    Latin-1 read as GBK fails it: an accented letter before an ASCII letter is a GBK character
    outside GB2312 ("T\xedtulo"), and two lower-case accented letters ("\xe7\xe3o", "\xf6\xdf")
    make an ideograph of the second level, which everyday text seldom uses."""
    counts = Counter(_NOT_ASCII.findall(text))
    standard = usual = 0
    for ch, n in counts.items():
        b = ch.encode(codec)
        if len(b) != 2:
            continue
        code = b[0] << 8 | b[1]
        if codec == "cp932":
            standard += n if b[0] <= 0x9F or 0xE0 <= b[0] <= 0xEF else 0  # not user-defined (0xF0-0xF9), IBM's
            usual += n if 0x8140 <= code <= 0x84FF or 0x889F <= code <= 0x9872 else 0
        elif b[0] >= 0xA1 and b[1] >= 0xA1:  # GB2312 or JIS X 0208 in GBK or EUC-JP
            standard += n
            usual += n if b[0] <= 0xA9 or 0xB0 <= b[0] <= (0xD7 if codec == "gbk" else 0xCF) else 0
    wide = sum(counts.values())
    return standard * 20 >= wide * 19 and usual * 5 >= wide * 4


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
        if wide and cjk * 10 >= wide * 9 and _usual(text[:_SAMPLE], codec):
            read[codec] = (wide, len(_KANA.findall(text)), cjk)
    japanese = [c for c in _JAPANESE if c in read and read[c][1] * 10 >= read[c][0]]
    if japanese:
        return max(japanese, key=lambda c: read[c][1])
    if "gbk" in read:
        return "gbk"
    return next((c for c in _JAPANESE if c in read), None)  # Japanese in ideographs alone


_HALF_WIDTH_KANA = re.compile(r"[\uff61-\uff9f]")


def foreign_to_cjk(ch: str) -> bool:
    """Whether `ch`, added to a file read as Shift-JIS, EUC-JP or GBK, is more likely a sign the
    file is not in that encoding than a character its text holds: a letter of another script (an
    accented Latin letter, which GBK writes as a pinyin letter) or any character of Latin-1's upper
    half. Punctuation, arrows and the like are written as such text writes them."""
    if _CJK_CHAR.match(ch) or _HALF_WIDTH_KANA.match(ch):
        return False
    return "\x80" <= ch <= "\xff" or unicodedata.category(ch).startswith("L")


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
