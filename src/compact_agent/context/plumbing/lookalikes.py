"""Text as a model reads it: for finding a copy of the program's own words that is spelt apart.

A tool's output may copy a header the program writes (`The user's messages, verbatim`) or the
marker of the user's own words with look-alike characters — a curly apostrophe, a Cyrillic `Т`, a
no-break space, fullwidth capitals — which a model reads as the same words but a plain search
does not find. `skeleton` writes each character as the one it passes for, one for one, so a match
in the skeleton is at the same place in the text.
"""

from __future__ import annotations

import functools
import re
import unicodedata

#: Letters of other scripts that read as Latin ones (`Тhe user's` with a Cyrillic Т), the
#: apostrophes a model reads as `'` (`The user’s messages`), and the hyphens and dashes it reads as
#: `-` (`[compact‐agent:` with U+2010).
_LOOK_ALIKES = str.maketrans(
    "АВЕЅІЈКМНОРСТХУаеіјоѕрсхуһԁԛԝΑΒΕΖΗΙΚΜΝΟΡΤΥΧοιν\u2018\u2019\u02bc\u02b9\u0060\u00b4\u2032\uff07"
    "\u2010\u2011\u2012\u2013\u2043\u2212",
    "ABESIJKMHOPCTXYaeijospcxyhdqwABEZHIKMNOPTYXoiv" + "'" * 8 + "-" * 6)


#: Characters a model may read as `<` although a parser does not: the fullwidth and small forms,
#: angle brackets and quotes, the letters confusable with it.
LESS_THAN = "<\uff1c\ufe64\u2039\u3008\u2329\u27e8\u276c\u276e\u27ea\u29fc\u02c2\u1438\u16b2\u226e"
#: What may come between such a `<` and a tag's name: spaces, slashes and backslashes in any width
#: (`<／summary_record>`), combining marks (`<\u0338/…`).
TAG_GAP = "\\s/\\\\\uff0f\uff3c\u2044\u2215\u29f8\u29f5\u0300-\u036f\u20d0-\u20ff"
#: Invisible format characters, which split a word without showing (`</summary_record\u200b>`,
#: `The user\u2060's messages`).
INVISIBLE = re.compile(r"[\u00ad\u180e\u200b-\u200f\u202a-\u202e\u2060-\u2064\u2066-\u206f\ufeff]")


def skeleton(text: str) -> str:
    """`text` as a model may read it, one character for each of its own (so a match in one is where it
    is in the other): each in its compatibility form where that is one character (fullwidth `Ｔ` as
    `T`), look-alike letters and apostrophes as the Latin ones, every space character as ` `. Every
    tool result is looked at so: plain ASCII goes through one table."""
    if text.isascii():
        return text.translate(_ASCII)
    return "".join(map(_as_read, text))


_ASCII = {**{c: " " for c in range(128) if chr(c).isspace()}, ord("`"): "'"}


@functools.lru_cache(maxsize=4096)
def _as_read(c: str) -> str:
    k = unicodedata.normalize("NFKC", c)
    k = (k if len(k) == 1 else c).translate(_LOOK_ALIKES)
    return " " if k.isspace() else k


def spelt_apart(words: str) -> str:
    """A regex for `words` in a skeleton: each space any run of spaces (`The  user's`)."""
    return " +".join(re.escape(w) for w in words.split(" "))


def marked(text: str, found: re.Pattern[str], mark: str) -> str:
    """`text` with `mark` and a space put before each match of `found` in its skeleton (a copy of the
    program's own words, however it is spelt): the skeleton has a character for each of `text`'s, so
    the match is where it is in `text`."""
    for at in reversed([m.start() for m in found.finditer(skeleton(text))]):
        text = f"{text[:at]}{mark} {text[at:]}"
    return text
