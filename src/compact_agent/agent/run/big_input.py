"""Input over half the room before compaction (`cat big.log | compact-agent -p "explain"`, a log
pasted into the REPL): saved whole beside the session, sent as its beginning and end and the path
of the rest.

A compaction carries what the user typed verbatim, but a message larger than the room a request
has cannot go out whole: left to the pipeline, the first request is compacted at once and the
model sees a few hundred characters of it. So the input of such a message is written to the
session's `tool-results/` folder (which read_file and grep may read, as they may a spilled tool
result), and the message carries the typed words whole, then the input's head and tail with where
the whole input is, as a spilled tool result's preview does (`build_preview`). Nothing is lost: the
file is the input, byte for byte as decoded.
"""

from __future__ import annotations

from datetime import datetime
from pathlib import Path

from ...context.layers.previews import build_preview
from ...context.plumbing import secrets, tokens
from ...context.plumbing.markers import write_private

#: The share of the compaction threshold a message may take whole; over it, its input goes as head and tail.
SHARE = 2
#: Of that, what the head and the tail show (each a quarter of the share).
SHOWN = 4


def cut_line(size: int, threshold: int, window: int, path: object, *, server: str = "") -> str:
    """What the user is told when an input of `size` tokens went to a file (`path`): why, in the
    figures the decision was made on. Over half the room before compaction (`threshold`) it goes,
    also when a request could have held it: the conversation would be compacted at once, and the
    input with it; more than all of that room, it says so. Said alike for the window known at start
    and a server's smaller one (`server`: that server, named: `the server at http://…`, `DeepSeek's API`)."""
    where = f"the {window:,}-token window of {server}" if server else f"the {window:,}-token window"
    share = "more than the" if size > threshold else "over half of the"  # 'over half' of 11,700 said of 15,007
    why = (f"is more than {where} holds" if size > window else
           f"is {share} {threshold:,} at which the conversation is compacted in {where}")
    return f"the input (about {size:,} tokens) {why}: the model gets its beginning and end, and reads the rest from {path}"


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
    # As the file holds it (keys redacted): the preview's byte offsets are the file's.
    body = secrets.redact("\n\n".join(x for x in (before.rstrip("\n"), after.lstrip("\n")) if x.strip()))
    stamp = (now or datetime.now()).strftime("%Y%m%d-%H%M%S-%f")
    path = folder / "tool-results" / f"input-{stamp}.txt"
    write_private(path, body, "spill")
    preview = build_preview(body, room // SHOWN * 8, path, kind="input")  # each end: a quarter of the room
    return (f"{words}\n\n{preview}" if words.strip() else preview), path
