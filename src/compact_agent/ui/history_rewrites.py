"""What `/history` lists of the session's rewrites, above its messages: each compaction, rewind,
input cut to a server's window or history a program changed, read from the archives and the live
file, and the lines that say them (history_view.py lists the messages; it gives these on)."""

from __future__ import annotations

from collections.abc import Sequence

from ..context.refit import INPUT_CUT
from ..session.archives import head_boundaries
from ..session.store import Boundary, SessionStore


def all_boundaries(store: SessionStore, skipped: list[OSError] | None = None) -> list[Boundary]:
    """Every compaction (and rewind) of the session, oldest first, from the archives and the live file.

    A rewrite keeps only the newest boundary in the live file; each earlier one is in the archive
    taken before the next rewrite, so the archives together hold the whole list. Why each archive
    that could not be read was left out goes into `skipped` (/status and /history say it).
    Each file is read only as far as its first message (`head_boundaries`): loading every archive
    whole to count them took 3.5 s of CPU at 252 archives.
    """
    found: dict[tuple[str, str, str, int, str], Boundary] = {}
    for path in [*store.archives(), store.path]:  # in the order written, by name (old names too)
        try:  # read only as a regular file: a FIFO waited for a writer for ever; /dev/zero, read on
            heads = head_boundaries(path) if path.exists() else []
        except OSError as e:
            if skipped is not None and path != store.path:
                skipped.append(e)
            continue
        for b in heads:
            found.setdefault((b.time, b.trigger, b.strategy, b.tokens_before, b.archive), b)
    # In the order written, not sorted by time: a rewind saved by an older version has none (the
    # store now gives every record its clock's time, which /history shows).
    return list(found.values())


#: The trigger of the store's rewrite when a run is handed a history that is not what the session
#: holds (context/contract.py StoreSync): a program using the library asked for an answer again, or
#: went on from an earlier point (a branch). The session holds the conversation as it now goes.
EDITED = "history_changed"


def compactions(boundaries: Sequence[Boundary]) -> list[Boundary]:
    """The compactions among `boundaries`: not a rewind, nor the prompt cut to a server's window
    (context/refit.py), which rewrote one message, nor an edited history; these fold nothing."""
    return [b for b in boundaries if b.strategy != "rewind" and b.trigger not in (INPUT_CUT, EDITED)]


def boundary_words(b: Boundary) -> tuple[str, str]:
    """What `/history` says of a rewrite of the session, and above the path of its archive. A prompt
    cut to the window a server's refusal taught was 'compaction (history_changed, replace) 0 → 0
    tokens', its archive 'the conversation before it'."""
    if b.strategy == "rewind":
        return "rewind", "the conversation before it:"
    if b.trigger == INPUT_CUT:
        window = b.extra.get("window")
        of = f" of {window:,} tokens" if isinstance(window, int) and not isinstance(window, bool) else ""
        return f"the input was cut to fit the server's window{of}", "the whole text, as it came, is in:"
    if b.trigger == EDITED:  # was 'compaction (history_changed, replace)  0 → 0 tokens'
        return ("the conversation went on from an earlier point (an answer asked for again, or a branch)",
                "the conversation as it was before:")
    # Made by `/model … --window N` (model_switch.py): not a /compact the user typed, as `manual` said
    window = b.extra.get("switched_window")
    why = f"to fit a {window:,}-token window" if isinstance(window, int) and not isinstance(window, bool) \
        else b.trigger
    return (f"compaction ({why}, {b.strategy})  {b.tokens_before:,} → {b.tokens_after:,} tokens",
            "the conversation before it:")


#: Where `/history` writes what a rewrite was, after its time (16 columns) and two spaces.
WORDS_AT = 18


def boundary_lines(when: str, what: str, width: int) -> list[str]:
    """`/history`'s line for a rewrite (its time, then `what`), on as many lines as `width` needs.
    At 60 columns 'compaction (manual, full)  4,512 → 2,230 tokens' wrapped at its last space and
    left `tokens` alone at column 0: the parts of `what` (apart by two spaces: the words, the
    figures) now go on whole, one under the other, in the column the words begin in, and a part
    too long for it wraps there at words."""
    from rich.cells import cell_len

    from .cells import wrap

    room = max(20, width - WORDS_AT)
    lines: list[str] = []
    for part in what.split("  "):
        if lines and cell_len(lines[-1]) + 2 + cell_len(part) <= room:
            lines[-1] += "  " + part
        else:
            lines += wrap(part, room, fold=False) or [part]  # in cells: a wide character takes two
    return [f"{when if i == 0 else '':<16}  {line}" for i, line in enumerate(lines)]
