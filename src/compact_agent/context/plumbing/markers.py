"""Our marks on messages and parts, and the one way side files are written.

Every layer records what it did in `metadata["compact_agent"][<layer>]`, never in text the model
reads, and keeps whatever metadata was there. Side files (spilled tool output, notes) hold what
tool output held — possibly secrets — so they are written the same private, atomic way.
"""

from __future__ import annotations

import os
import tempfile
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from . import crashpoints, secrets

KEY = "compact_agent"
OWN_TEXT = "[compact-agent:"
"""How every text the program itself puts in a user-role message begins (the plan, hook output, MCP
notes, notices): context for the model, never the user's words, nor a step of the work."""
FOLDED = (f"{OWN_TEXT} the newest steps, folded into this note to fit the window (the saved session "
          "keeps them whole); read a saved result in small parts: whole, it would not fit either]\n")
"""How the note begins that the newest steps are folded into when even their previews do not fit
(decisions/fit.py): a window too small for it names it (refusal.py)."""
DIGEST_HEADER = "[Collapsed history digest]"
"""How a digest of collapsed rounds begins (layers/digest.py): our text, which a window too small
for it names as such, not as what the user typed (refusal.py)."""


TYPED = "typed"
"""What a run marks (`metadata[KEY][TYPED]`, `mark_typed`) the request holding the prompt it was given
with, where that prompt begins as the program's own texts do (a piped document that starts
`[compact-agent:` or `[Collapsed history digest]`): a short hash of its text. It is the user's all the
same (`typed_part`): a compaction left such a message out of the user's messages it carries."""


def _prompt_of(content: Any) -> str | None:
    """The text of a user prompt's content: itself, or the first item of a list that starts with text."""
    if isinstance(content, str):
        return content
    if isinstance(content, list | tuple) and content and isinstance(content[0], str):
        return content[0]
    return None


def _hashed(text: str) -> str:
    import hashlib

    return hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()[:16]


def mark_typed(messages: Sequence[Any], prompt: Any) -> None:
    """Mark the newest request among `messages` that holds `prompt` (a run's own, as it was given), where
    it begins as the program's texts do: once, whatever later requests of the run ask again."""
    text = _prompt_of(prompt) if prompt is not None else None
    if not text or not text.startswith((OWN_TEXT, DIGEST_HEADER)):
        return
    for m in reversed(messages):
        if getattr(m, "kind", None) != "request":
            continue
        if any(getattr(p, "part_kind", None) == "user-prompt" and _prompt_of(p.content) == text for p in m.parts):
            held = ours(m).get(TYPED)
            held = [h for h in held if isinstance(h, str)] if isinstance(held, list) else []
            if (key := _hashed(text)) not in held:
                m.metadata = mark(m.metadata, TYPED, [*held, key])
            return


def typed_part(m: Any, part: Any) -> bool:
    """Whether `part` of request `m` is the prompt a run was given (`mark_typed`): the user's words."""
    held = ours(m).get(TYPED)
    text = _prompt_of(getattr(part, "content", None))
    return isinstance(held, list) and text is not None and _hashed(text) in held


def users_request(m: Any) -> bool:
    """Whether `m` is a request of the user's own words: a user prompt in it, and no metadata but the
    `TYPED` mark (a context message of the program's, a summary, an attachment carry marks of their own)."""
    if getattr(m, "kind", None) != "request" or not any(getattr(p, "part_kind", None) == "user-prompt" for p in m.parts):
        return False
    meta = getattr(m, "metadata", None)
    return not meta or (isinstance(meta, dict) and set(meta) == {KEY} and set(ours(m)) == {TYPED})


WHOLE = "whole"
"""What a restore marks (`metadata[KEY][WHOLE] = True`) the result of a file it read back whole, not
cut to its per-file budget: a compaction keeps no read of that file beside it (restore.py `whole`)."""


def mark(metadata: Any, layer: str, info: Any) -> dict[str, Any]:
    """`metadata` with `info` under `[KEY][layer]`, everything else kept (a non-dict under "value")."""
    base: dict[str, Any] = dict(metadata) if isinstance(metadata, dict) else {}
    if metadata is not None and not isinstance(metadata, dict):
        base["value"] = metadata
    ours = dict(base.get(KEY) or {})
    ours[layer] = info
    base[KEY] = ours
    return base


def ours(obj: Any) -> dict[str, Any]:
    """What this library (or the agent using it) noted in the metadata of `obj`, a message or a part:
    the dict under `[KEY]`, empty when there is none."""
    meta = getattr(obj, "metadata", None)
    found = meta.get(KEY) if isinstance(meta, dict) else None
    return found if isinstance(found, dict) else {}


def tool_mark(part: Any) -> dict[str, Any]:
    """What a toolset noted of its result under `[KEY]["tool"]` (`"error"`; `"ran"` false: the call
    never ran; `"finished"` false: it was stopped, a command killed at its timeout), empty when nothing."""
    tool = ours(part).get("tool")
    return tool if isinstance(tool, dict) else {}


def failed_result(part: Any) -> bool:
    """Whether a tool result says its call did not happen: pydantic-ai's `outcome` (failed, denied,
    interrupted, retried), or the error mark a toolset puts under `[KEY]["tool"]["error"]` on a
    result it reports as text (a refusal, an edit whose old text was not found)."""
    if getattr(part, "outcome", "success") != "success":
        return True
    return bool(tool_mark(part).get("error"))


ATTACHMENT_KINDS = ("mention", "image")
"""The `[KEY]["synthetic"]` kinds of the read_file exchanges an agent inserts before a user's message
to carry the files and images the user attached to it (`@path`, a pasted image path): part of that
message, not a step of the model's."""


def is_attachment(m: Any) -> bool:
    """Whether `m` is (half of) the exchange carrying what the user attached to their next message."""
    return ours(m).get("synthetic") in ATTACHMENT_KINDS


KEPT = "kept"
"""The `[KEY]["synthetic"]` kind of the call and result a compaction keeps after its summary because
the model is still using the result (compaction/keep.py `kept_results`)."""


def is_kept_result(m: Any) -> bool:
    """Whether `m` is (half of) a call and result a compaction kept for the model: this one's or an
    earlier one's, which the mark does not tell apart (`CompactionResult.kept` does)."""
    return ours(m).get("synthetic") == KEPT


RESTORED = "restore"
"""The `[KEY]["synthetic"]` kind of the read_file exchange a compaction puts after its summary: a
file the program read again from disk (the agent's `mention_messages`), not a read of the model's."""


def joined_metadata(messages: Sequence[Any]) -> dict[str, Any] | None:
    """The metadata of one request joined from adjacent `messages` (as a provider is sent them):
    each one's entries, a later one's winning, but for a compaction message's own entry (`KEY`),
    which only a later compaction message replaces (an incremental one's update, which carries
    everything the one before it did). pydantic-ai's join keeps none: a compaction message joined
    with the plan or the prompt after it lost the user's messages and the ledger it carries, and
    the next compaction dropped them."""
    out: dict[str, Any] = {}
    held = False
    for m in messages:
        meta = getattr(m, "metadata", None)
        compaction = is_compaction_message(m)
        if isinstance(meta, dict):
            out.update({k: v for k, v in meta.items() if not (held and k == KEY and not compaction)})
        held = held or compaction
    return out or None


def is_compaction_message(m: Any) -> bool:
    """Whether `m` is the message a compaction starts a history with (it carries the user's
    messages verbatim and the file ledger, so no layer may fold it away). Known by its metadata; one
    saved without it has it back from its text at the start of a run (compaction/unmarked.py)."""
    return ours(m).get("kind") == "summary"


def write_private(path: Path, text: str, point: str) -> None:
    """Temp file, fsync, rename, mode 0600 in a 0700 folder, API keys redacted.

    A reader (or a crash) never sees half a file; `point` names the crash points for the
    kill-anywhere tests (`<point>.synced`, `<point>.renamed`).
    """
    path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        try:
            crashpoints.write_in_two(fd, secrets.redact(text).encode("utf-8"), point)
            os.fsync(fd)
        finally:
            os.close(fd)
        os.chmod(tmp, 0o600)
        crashpoints.hit(f"{point}.synced")
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
    crashpoints.hit(f"{point}.renamed")
