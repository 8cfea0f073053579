"""Input too large for a request (`cat big.log | compact-agent -p "explain"`, a log pasted into the
REPL): saved whole beside the session, sent as its first and last lines and the path of the rest.

A compaction carries what the user typed verbatim, but a message larger than the room a request
has cannot go out whole: left to the pipeline, the first request is compacted at once and the
model sees a few hundred characters of it. So the input of such a message is written to the
session's `tool-results/` folder (which read_file and grep may read, as they may a spilled tool
result), and the message carries the typed words whole, the input's head and tail, and where the
whole input is. Nothing is lost: the file is the input, byte for byte as decoded.
"""

from __future__ import annotations

from datetime import datetime
from pathlib import Path

from ...context.plumbing import tokens
from ...context.plumbing.markers import write_private

#: The share of the compaction threshold a message may take whole; over it, its input goes as head and tail.
SHARE = 2
#: Of that, what the head and the tail show (each a quarter of the share).
SHOWN = 4


def fit_input(prompt: str, typed: str | None, threshold: int, folder: Path,
              now: datetime | None = None) -> tuple[str, Path | None]:
    """`prompt` as sent, and the file that holds what was too large of it (else None).

    `typed` is the part of `prompt` the user typed (None: all of it); the rest is input that came
    with it (piped, or a `!cmd`'s output). Too large, that input is what goes to the file and the
    typed words go whole; a typed part too large by itself (a paste) goes to the file with the
    rest. `threshold` is the compaction threshold in tokens."""
    room = threshold // SHARE
    if tokens.text_tokens(prompt) <= room:
        return prompt, None
    words = typed or ""
    if tokens.text_tokens(words) > room // SHOWN:  # a paste: it is the input
        words = ""
    if words and prompt.startswith(words):  # `-p "explain"` with a pipe: the words come first
        before, after = "", prompt[len(words):]
    elif words and prompt.endswith(words):  # the REPL: earlier `!cmd` output, then the line typed
        before, after = prompt[:-len(words)], ""
    else:
        before, after, words = "", prompt, ""
    body = "\n\n".join(x for x in (before.rstrip("\n"), after.lstrip("\n")) if x.strip())
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
    return (f"{words}\n\n{framed}" if words.strip() else framed), path


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
