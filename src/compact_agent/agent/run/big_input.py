"""Input too large for a request (`cat big.log | compact-agent -p "explain"`): saved whole beside
the session, sent as its first and last lines and the path of the rest.

A compaction carries what the user typed verbatim, but a message larger than the room a request
has cannot go out whole: left to the pipeline, the first request is compacted at once and the
model sees a few hundred characters of it. So the piped part of such a prompt is written to the
session's `tool-results/` folder (which read_file and grep may read, as they may a spilled tool
result), and the message carries the typed words whole, the input's head and tail, and where the
whole input is. Nothing is lost: the file is the input, byte for byte as decoded.
"""

from __future__ import annotations

from datetime import datetime
from pathlib import Path

from ...context.plumbing import tokens
from ...context.plumbing.markers import write_private

#: The share of the compaction threshold piped input may take whole; over it, head and tail only.
SHARE = 2
#: Of that, what the head and the tail show (each a quarter of the share).
SHOWN = 4


def fit_input(prompt: str, typed: str, threshold: int, folder: Path,
              now: datetime | None = None) -> tuple[str, Path | None]:
    """`prompt` as sent, and the file that holds its piped part when it was too large (else None).

    `typed` is the part of `prompt` the user typed (the query argument, "" for `-p -`); the rest
    is piped input. `threshold` is the compaction threshold in tokens."""
    piped = prompt[len(typed):] if prompt.startswith(typed) else prompt
    room = threshold // SHARE
    if tokens.text_tokens(piped) <= room:
        return prompt, None
    body = piped.lstrip("\n")
    stamp = (now or datetime.now()).strftime("%Y%m%d-%H%M%S-%f")
    path = folder / "tool-results" / f"input-{stamp}.txt"
    write_private(path, body, "spill")
    chars = room // SHOWN * 4  # characters of each end (about four to a token)
    head, tail = _head(body, chars), _tail(body, chars)
    lines = body.rstrip("\n").count("\n") + 1
    left = lines - (head.count("\n") + 1) - (tail.count("\n") + 1)
    framed = (f"[The input given with this message is {len(body):,} characters ({_lines(lines)}), more than a "
              f"request can hold: it is saved whole at {path} (read it with read_file and an offset, or grep "
              f"it). Its first and last lines follow.]\n{head}\n[… {_lines(max(left, 0))} not shown here …]\n{tail}")
    return (f"{typed}\n\n{framed}" if typed.strip() else framed), path


def _head(text: str, chars: int) -> str:
    """The first lines of `text` within `chars` (a line longer than that is cut)."""
    if len(text) <= chars:
        return text
    cut = text.rfind("\n", 0, chars)
    return text[:cut] if cut > 0 else text[:chars]


def _tail(text: str, chars: int) -> str:
    """The last lines of `text` within `chars` (a line longer than that is cut)."""
    text = text.rstrip("\n")
    if len(text) <= chars:
        return text
    cut = text.find("\n", len(text) - chars)
    return text[cut + 1:] if cut >= 0 else text[-chars:]


def _lines(n: int) -> str:
    return f"{n:,} line" + ("" if n == 1 else "s")
