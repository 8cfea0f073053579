"""How `/rewind`'s checkpoints follow a rewrite of the history that is not a compaction (an answer
asked for again, a branch, an edit made between two runs): each checkpoint is found again by the
key of the message before it (checkpoint_entry.message_key). One whose message moved points at it
again; one whose message is gone is dropped, the files it saved given to the checkpoint before it,
so a rewind there still puts them back. This is apart from checkpoints.py, which saves the list
this changes and deletes the versions no checkpoint names any more.

A compaction moves the checkpoints into its archive itself (`Checkpoints.compacted`), once the
rewritten session file is in place. A run killed in between left a list that still indexes the
conversation as the compaction found it: such a checkpoint, not found in the history, is looked for
at its place in the archive the newest compaction message names, and put there, as the compaction
would have (with the checkpoints at its start before it), rather than dropped as if left by a branch.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

from pydantic_ai.messages import ModelMessage

from ...context.compaction.summary import archive_named
from ...session.loading import load_session_file
from .checkpoint_entry import Checkpoint, message_key


@dataclass
class Followed:
    """What following a rewrite did (`follow`)."""

    #: the checkpoints kept, numbered again from 0 when some were dropped
    kept: list[Checkpoint] = field(default_factory=list)
    #: the checkpoints dropped: their message is gone
    dropped: list[Checkpoint] = field(default_factory=list)
    #: a kept checkpoint changed (it moved, or it got the key of the message at its place)
    changed: bool = False
    #: files a dropped checkpoint saved went with it (no checkpoint came before it)
    gone: bool = False


def follow(items: Sequence[Checkpoint], history: Sequence[ModelMessage]) -> Followed:
    """Find each of `items` that indexes the rewritten `history` again by the message before it (the
    module docstring). The earliest version of each file wins, as in a rewind. A checkpoint from
    before anchors were kept gets the message now at its place."""
    keys: list[str] | None = None
    out = Followed()
    home = _Archive(history)
    for cp in items:
        h = cp.history_len
        if cp.archive is not None or h == 0:
            out.kept.append(cp)
            continue
        if cp.anchor is None and h <= len(history):
            cp.anchor, out.changed = message_key(history[h - 1]), True
        if h <= len(history) and message_key(history[h - 1]) == cp.anchor:
            out.kept.append(cp)
            continue
        keys = keys if keys is not None else [message_key(m) for m in history]
        if cp.anchor in keys:
            cp.history_len, out.changed = keys.index(cp.anchor) + 1, True
            out.kept.append(cp)
            continue
        if (archive := home.holds(cp)) is not None:  # a compaction's, not saved before a kill
            for earlier in out.kept:
                if earlier.archive is None and earlier.history_len == 0:
                    earlier.archive = archive
            cp.archive, out.changed = archive, True
            out.kept.append(cp)
            continue
        out.dropped.append(cp)
        if out.kept:
            _give(cp, out.kept[-1])
        else:
            out.gone = out.gone or bool(cp.saved or cp.pruned)
    if out.dropped:
        for i, cp in enumerate(out.kept):
            cp.index = i
    return out


class _Archive:
    """The archive the newest compaction message of a history names, read once when first asked."""

    def __init__(self, history: Sequence[ModelMessage]) -> None:
        self.path = next((a for m in reversed(history) if (a := archive_named(m)) is not None), None)
        self._keys: list[str] | None = None

    def holds(self, cp: Checkpoint) -> str | None:
        """The archive's path when the message before `cp` is at its place there, else None."""
        if self.path is None or cp.anchor is None:
            return None
        if self._keys is None:
            try:
                self._keys = [message_key(m) for m in load_session_file(Path(self.path)).messages]
            except OSError:  # gone, or not a file: the checkpoint is dropped as before
                self._keys = []
        h = cp.history_len
        return self.path if 0 < h <= len(self._keys) and self._keys[h - 1] == cp.anchor else None


def _give(dropped: Checkpoint, to: Checkpoint) -> None:
    """The files `dropped` saved, to the checkpoint before it: those `to` saved first keep its version."""
    for path, blob in dropped.saved.items():
        if path not in to.saved and path not in to.pruned:
            to.saved[path] = blob
    for path in dropped.pruned:
        if path not in to.saved and path not in to.pruned:
            to.pruned.append(path)
    for path in dropped.left.keys() | dropped.writing.keys():  # written after `to`'s writes: what the
        to.writing.pop(path, None)  # session left, or a write of it cut short left
    to.left.update(dropped.left)
    to.writing.update(dropped.writing)
