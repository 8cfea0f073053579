"""`$ARGUMENTS` in a custom command's file, filled with what followed the command's name.

Given no arguments, the placeholder went and the spaces around it stayed: `Review $ARGUMENTS
carefully.` reached the model as `Review  carefully.`, `Fix $ARGUMENTS.` as `Fix .`, and a line of
its own as an empty line in the middle of the prompt. The gap it leaves is closed as a person would
write the sentence without it.
"""

from __future__ import annotations

import re

PLACEHOLDER = "$ARGUMENTS"
_ALONE = re.compile(r"^[ \t]*\$ARGUMENTS[ \t]*(?:\r?\n|$)", re.M)  # a line that holds only the placeholder
_GAP = re.compile(r"[ \t]*\$ARGUMENTS[ \t]*")
_CLOSES = tuple(".,;:!?)]}")  # punctuation that follows a word with no space before it


def fill(text: str, args: str) -> str:
    """`text` with every `$ARGUMENTS` replaced by `args`; without arguments, each with the space
    around it closed up (`Review carefully.`, `Fix.`), a line that held only it taken out."""
    if args:
        return text.replace(PLACEHOLDER, args)
    text = _ALONE.sub("", text)

    def gap(m: re.Match[str]) -> str:
        before = text[m.start() - 1] if m.start() else "\n"
        after = text[m.end()] if m.end() < len(text) else "\n"
        if before in "\r\n":  # at a line's start: its indentation stays
            return m.group()[: len(m.group()) - len(m.group().lstrip(" \t"))]
        return "" if after in "\r\n" or after in _CLOSES else " "
    return _GAP.sub(gap, text)
