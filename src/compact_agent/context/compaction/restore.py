"""What comes back after a compaction: the files being edited, and attachments (plan, instructions).

A summary describes files; the model still needs their text to keep editing. Of the recently read
files that still exist, those changed since the previous compaction (keep.py chooses them, and only
for a model that returns to the files it changed) are re-read from disk now (not from the stale
transcript), newest first, within per-file and total token budgets, and injected as synthetic
read_file calls, the same mechanism as an `@path` mention. The actual reading is the agent's (`Restorer.reread`), so
this library never touches the file system itself.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Sequence
from dataclasses import dataclass
from pathlib import Path

from pydantic_ai.messages import (
    ModelMessage,
    ModelRequest,
    ModelResponse,
    ToolCallPart,
    ToolReturnPart,
    UserPromptPart,
)

from ..plumbing import tokens
from ..plumbing.markers import WHOLE, ours
from ..plumbing.settings import Limits
from . import ledger


@dataclass
class Restorer:
    """The agent-side callbacks a compaction uses to rebuild working state.

    `recent_files` lists read files newest first; `reread(paths, max_tokens_per_file)` reads them
    now and returns the synthetic call/return messages, registering them in a fresh read state,
    and marks the result of each file it brought back whole, not cut to `max_tokens_per_file`
    (`metadata["compact_agent"]["whole"] = True`, markers.py `WHOLE`): a read of such a file the
    compaction replaces is not kept beside it (unmarked, the read is kept); `reset` clears the
    read state; `attachments` returns extra context that must survive (plan, instructions) as
    messages; `resolve` names a path as the file it is (`./a.py` and `a.py` alike): a path it
    raises for (a link that loops) is named by its text (`ledger.named`), and the compaction goes on.
    `state(path)`: what became of a file the compaction lists as changed, in a few words, where it is
    no longer what the model's tools left (`ledger.GONE`, "now a folder"), or where the latest
    `reread` left it out, unable to show it ("not restored: a binary file (150 bytes)"); None otherwise
    (the default: a caller that knows no disk, as the analyzer's replay, says nothing).
    """

    recent_files: Callable[[], list[Path]] = list
    reread: Callable[[list[Path], int], list[ModelMessage]] = lambda paths, n: []
    reset: Callable[[], None] = lambda: None
    attachments: Callable[[], list[ModelMessage]] = list
    file_tokens: Callable[[Path], int] = lambda p: tokens.text_tokens("x" * min(p.stat().st_size, 10_000_000))
    resolve: Callable[[str], Path] = Path
    state: Callable[[str], str | None] = lambda path: None

    def name(self, path: str) -> Path | str:
        """`resolve(path)`, or the text `path` where it raised (`ledger.named`)."""
        return ledger.named(self.resolve, path)


def _head(text: str) -> str:
    """What names an attachment's kind: its first line up to the closing bracket of its mark
    (`[compact-agent: current plan]`), else the whole first line."""
    first = text.split("\n", 1)[0]
    return first[: first.index("]") + 1] if "]" in first else first


def _latest_texts(kept: Sequence[ModelMessage]) -> dict[str, str]:
    """The newest text of each kind of attachment `kept` holds (`_head`)."""
    latest: dict[str, str] = {}
    for m in kept:
        if isinstance(m, ModelRequest):
            for p in m.parts:
                if isinstance(p, UserPromptPart) and isinstance(p.content, str):
                    latest[_head(p.content)] = p.content
    return latest


def outdated_in(attachments: Sequence[ModelMessage], kept: Sequence[ModelMessage]) -> bool:
    """Whether `kept` holds an attachment of a kind `attachments` now says otherwise (a plan
    changed since): kept byte for byte, the old copy would stay in every request beside the new."""
    latest = _latest_texts(kept)
    return any(isinstance(p, UserPromptPart) and isinstance(p.content, str)
               and latest.get(_head(p.content), p.content) != p.content
               for m in attachments for p in m.parts)


def new_attachments(attachments: Sequence[ModelMessage], kept: Sequence[ModelMessage]) -> list[ModelMessage]:
    """The attachments an incremental compaction adds after the messages it `kept`: those whose
    texts are not, each, the latest of their kind the kept messages already hold. The kept
    compaction message stays byte for byte (a cache hit) with the attachments that followed it, so
    restoring an unchanged plan at every compaction piled up identical copies of it; a changed one
    is added, the newest copy then being the one in force (a compaction that can write a new
    message does not keep one that holds an outdated copy: `outdated_in`)."""
    latest = _latest_texts(kept)
    out: list[ModelMessage] = []
    for m in attachments:
        texts = [p.content for p in m.parts if isinstance(p, UserPromptPart) and isinstance(p.content, str)]
        if len(texts) == len(m.parts) and texts and all(latest.get(_head(t)) == t for t in texts):
            continue
        out.append(m)
    return out


def read_paths_in(messages: Sequence[ModelMessage]) -> set[str]:
    """Paths whose read result is already present (e.g. in a kept tail): the reads the ledger knows,
    but those whose result says they failed (nothing of the file is there)."""
    return {path for _, path in ledger.reads(messages, done=True)}


def reads_one_of(call: ToolCallPart, paths: Collection[Path | str], resolve: Callable[[str], Path]) -> bool:
    """Whether `call` reads one of the files `paths` (as `resolve` names them)."""
    return bool(paths) and (path := ledger.read_path(call)) is not None and ledger.named(resolve, path) in paths


def pick_files(candidates: Sequence[Path], limits: Limits, exclude: Collection[Path | str],
               file_tokens: Callable[[Path], int]) -> list[Path]:
    """Newest first: at most N existing files whose (capped) size fits the total budget."""
    picked: list[Path] = []
    used = 0
    for path in candidates:
        if len(picked) >= limits.restore_max_files:
            break
        if path in exclude or not path.is_file():
            continue
        try:
            cost = min(file_tokens(path), limits.restore_tokens_per_file)
        except OSError:
            continue
        if used + cost > limits.restore_total_tokens:
            continue
        picked.append(path)
        used += cost
    return picked


def whole(restored: Sequence[ModelMessage], resolve: Callable[[str], Path]) -> set[Path | str]:
    """The files `restored` (what `Restorer.reread` returned) holds whole: those whose result it
    marked so (`WHOLE`), as `resolve` names them. A read of one of them the compaction replaces
    says nothing its restored copy does not (keep.py). Judged by the file's size, a copy cut to
    the per-file budget passed for whole: numbered lines make a file of short lines longer than
    the file, and the read of lines past the cut the model was using went with the rest."""
    calls = {p.tool_call_id: p for m in restored if isinstance(m, ModelResponse)
             for p in m.parts if isinstance(p, ToolCallPart)}
    out: set[Path | str] = set()
    for m in restored:
        for p in m.parts if isinstance(m, ModelRequest) else ():
            if not isinstance(p, ToolReturnPart) or (call := calls.get(p.tool_call_id)) is None:
                continue
            if ours(p).get(WHOLE) is True and (path := ledger.read_path(call)) is not None:
                out.add(ledger.named(resolve, path))
    return out


def restore_messages(restorer: Restorer, limits: Limits, kept: Sequence[ModelMessage] = ()) -> list[ModelMessage]:
    """Reset the read state, then re-read the picked files (oldest of them first, like the reads were)."""
    candidates = restorer.recent_files()
    exclude = {restorer.name(p) for p in read_paths_in(kept)}
    picked = pick_files(candidates, limits, exclude, restorer.file_tokens)
    restorer.reset()
    out: list[ModelMessage] = []
    if picked:
        out += restorer.reread(list(reversed(picked)), limits.restore_tokens_per_file)
    out += restorer.attachments()
    return out
