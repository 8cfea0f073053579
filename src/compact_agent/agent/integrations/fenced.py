"""Text others wrote, quoted in a message of the program's own: a SessionStart hook's output and an
MCP server's instructions.

Both reach the model in a user-role message the program sends itself (extensions.py), where a line
that begins as the program's own lines do reads as the program's (a header of the compaction
message, `[compact-agent: …`) or as the user's words (the marker of an instruction the user gave
instead of a call). A hook may print text nobody there wrote (a commit message, a fetched page), and
a server's instructions are the server's words. So the text goes inside a `<tag>` block that nothing
in it can close — every tag-like `<` in it, in any spelling, is written `&lt;`, as in a compaction's
record (summary.neutralise) — each of its lines indented under the tags, and a copy of one of the
program's markers in it is marked `[copied]`, also one spelt with look-alike characters
(lookalikes.py). The text is otherwise as its author wrote it.
"""

from __future__ import annotations

import re

from ...context.compaction.summary import neutralise
from ...context.plumbing.lookalikes import marked, spelt_apart
from ...context.plumbing.markers import OWN_TEXT
from ..safety.permissions import INSTEAD

COPIED = "[copied]"
"""Put before a copy of the program's markers, as a compaction's record marks one (summary.neutralise)."""

#: The markers `neutralise` leaves to others: how the program's own context texts begin, and the
#: marker of the user's words in a declined call (permissions.INSTEAD), however they are spelt.
_OURS = re.compile(f"(?<!{re.escape(COPIED)} )(" + "|".join(spelt_apart(w) for w in (OWN_TEXT, INSTEAD)) + ")",
                   re.I)


def copies_marked(text: str) -> str:
    """`text` with every copy of the program's head (`[compact-agent:`) and of the marker of the
    user's words marked `[copied]`, however spelt: a plan item the model wrote, as a file it read
    may have told it to, goes back to it in the program's own user-role message after a compaction."""
    return marked(text, _OURS, COPIED)


def quoted_lines(text: str) -> list[str]:
    """`text`'s lines as a fence holds them: no tag of any spelling left whole, no invisible
    character, every copy of one of the program's markers or headers marked `[copied]`; every break a
    reader sees (`\\r`, U+2028) ends a line."""
    return marked(neutralise(text), _OURS, COPIED).splitlines() or [""]


def fenced(tag: str, text: str, indent: str = "") -> str:
    """`text` between `<tag>` and `</tag>` lines (at `indent`), each of its lines indented two spaces
    further (`quoted_lines`), so none of them starts where the program's own lines start and none
    closes the block."""
    inner = indent + "  "
    return "\n".join([f"{indent}<{tag}>", *(inner + line for line in quoted_lines(text)), f"{indent}</{tag}>"])


#: The most of an MCP server's instructions declared: they are the server's, sent in the conversation
#: and put back after every compaction, so a server's 360 KB left no compaction able to shrink a 16K
#: window's history (as a hook's output, hooks.MAX_OUTPUT_CHARS).
MAX_INSTRUCTION_CHARS = 10_000


def kept_start(text: str, most: int = MAX_INSTRUCTION_CHARS) -> str:
    """`text`, or its first `most` characters and a line saying how many were left out."""
    if len(text) <= most:
        return text
    return f"{text[:most]}\n[cut here: {len(text) - most:,} more characters left out, the first {most:,} kept]"

