"""Which parts of a sent prompt were pasted, kept for a later run of the REPL (`--continue`).

`/rewind` puts a prompt back in the input as it was shown when sent: `look: [pasted 20 lines] what
failed?`, the words typed around the paste editable (rewound_prompt.py). The REPL knew which parts
were pasted only while it ran: after `-c`, the same prompt came back as `[pasted 21 lines]`, the
question typed under the log hidden in the placeholder with it, and editing the question meant
taking the paste away too. Each prompt sent is now noted beside the project's sessions
(`sent_prompts/<session>.jsonl`, private as the prompt history is): its checkpoint's number and
preview, the line as shown (its placeholders), and the length of each paste, not its text (the
conversation holds that, and the record stays small). A later run rebuilds the pastes from the
prompt in the conversation; where that is gone (a compaction archived it) or differs, the prompt
comes back as before. The record is a help: a failure to write or read it says nothing.

A resumed session (`-c`, `-r`, `/resume`) shows its last prompts by the same record, and so do
`/history` and the sessions list: a prompt that was `look: [pasted 26 lines] what failed?` on the
screen when it was sent is that line again, not the log's first rows (`shown_as`). A custom command
(`/review q.py`) is noted with a digest of the prompt its file gave, which the model got: it is
listed as typed, where it showed as its file's text (`Review the code in q.py. Look for…`). A
prompt the record does not match is shown as before.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

from .. import secrets

FOLDER = "sent_prompts"


@dataclass(frozen=True)
class Noted:
    """A prompt as its record keeps it: the line shown, each paste's length, and the white space the
    sent message lost at its ends (the REPL sends a prompt without the blank lines before it and the
    white space after it: pastes.as_sent; a paste may end in a line break)."""

    line: str
    lengths: dict[str, int]
    lead: str = ""
    trail: str = ""
    digest: str = ""  # of the prompt sent, redacted, where it is not the line: a custom command's text

    def sent(self, said: str) -> bool:
        """Whether `said` (redacted) is the prompt sent for this line, as a digest noted says."""
        return bool(self.digest) and self.digest == digest(said)

    def pastes(self, sent: str) -> dict[str, str] | None:
        """The paste of each placeholder, taken from `sent` (the prompt as the conversation holds
        it) by the lengths noted; None when `sent` is not this line with pastes of those lengths."""
        whole = self.lead + sent + self.trail
        names = sorted(self.lengths, key=len, reverse=True)
        parts = re.split("(" + "|".join(map(re.escape, names)) + ")", self.line) if names else [self.line]
        held: dict[str, str] = {}
        at = 0
        for i, part in enumerate(parts):
            if i % 2 == 0:  # the words typed around the pastes
                if whole[at:at + len(part)] != part:
                    return None
                at += len(part)
            else:
                held[part] = whole[at:at + self.lengths[part]]
                at += self.lengths[part]
        return held if at == len(whole) and len(held) == len(self.lengths) else None


def digest(said: str) -> str:
    """A prompt's digest as the record keeps it (its text stays in the conversation only)."""
    return hashlib.sha256(said.strip().encode("utf-8", errors="replace")).hexdigest()[:32]


def note(line: str, held: dict[str, str], sent: str | None = None) -> Noted:
    """`line` (shown, as sent: pastes.as_sent) and the pastes of its placeholders `held`, as the record keeps them,
    with keys redacted as the session file has them. `sent`: the prompt a command typed as `line`
    sent (a custom command's text), noted by its digest."""
    from .pastes import Pastes, sent_ends

    texts = {p: secrets.redact(t) for p, t in held.items() if p in line}
    shown = secrets.redact(line)
    lead, _, trail = sent_ends(Pastes(dict(texts)).expand(shown))
    said = digest(secrets.redact(sent)) if sent is not None else ""
    return Noted(shown, {p: len(t) for p, t in texts.items()}, lead, trail, said)


def _path(root: Path, session_id: str) -> Path | None:
    if not session_id or session_id.startswith(".") or "/" in session_id or "\\" in session_id:
        return None
    return root / FOLDER / f"{session_id}.jsonl"


def save(root: Path, session_id: str, index: int, preview: str, noted: Noted) -> None:
    from ..session.files import ensure_private_file

    path = _path(root, session_id)
    if path is None:
        return
    entry = {"checkpoint": index, "preview": secrets.redact(preview), "line": noted.line,
             "pasted": noted.lengths, "lead": noted.lead, "trail": noted.trail,
             **({"digest": noted.digest} if noted.digest else {})}
    with contextlib.suppress(OSError):
        with ensure_private_file(path).open("a", encoding="utf-8") as f:
            f.write(json.dumps(entry, ensure_ascii=False) + "\n")


def _entries(root: Path, session_id: str) -> Iterator[tuple[int, str, Noted]]:
    """(checkpoint, preview, note) of each prompt the record of `session_id` holds, newest first."""
    path = _path(root, session_id)
    if path is None:
        return
    try:
        lines = path.read_text(encoding="utf-8", errors="replace").splitlines()
    except OSError:
        return
    for raw in reversed(lines):
        try:
            e = json.loads(raw)
            lengths = {str(p): int(n) for p, n in e["pasted"].items()}
            noted = Noted(str(e["line"]), lengths, str(e.get("lead", "")), str(e.get("trail", "")),
                          str(e.get("digest", "")))
            yield e["checkpoint"], e["preview"], noted
        except (ValueError, KeyError, TypeError, AttributeError):
            continue  # a line cut by a kill, or written by another version


def load(root: Path, session_id: str, index: int, preview: str) -> Noted | None:
    """The latest note of the prompt of checkpoint `index` whose preview is `preview` (a turn
    rewound and sent again is noted again; another prompt that took its number has another)."""
    said = secrets.redact(preview)
    return next((noted for at, was, noted in _entries(root, session_id) if at == index and was == said), None)


def preview(prompt: str) -> str:
    """A prompt as its checkpoint keeps it (Checkpoints.begin): on one line, redacted, cut."""
    from ..agent.tools.checkpoint_entry import PREVIEW_CHARS

    line = " ".join(secrets.redact(prompt).split())
    return line[:PREVIEW_CHARS - 1] + "…" if len(line) > PREVIEW_CHARS else line


def first_typed(root: Path, session_id: str, prompt: str) -> str | None:
    """The command typed for `prompt`, the first prompt of the session `session_id` as a listing
    of sessions has it (its first words, one line), where the record notes a custom command whose
    text begins so: `/review q.py`; else None. Of two such notes, the earlier checkpoint's."""
    said = preview(prompt)
    found = [(at, noted.line) for at, was, noted in _entries(root, session_id) if noted.digest and was == said]
    first = min((at for at, _ in found), default=None)
    return next((line for at, line in found if at == first), None)  # the newest note of that checkpoint


def shown_as(root: Path, session_id: str) -> Callable[[str], str]:
    """How a prompt of the session `session_id` was shown when it was sent: `prompt` (as the
    conversation holds it) with each of its pastes as its placeholder again, where the record notes
    one whose words and paste lengths give exactly `prompt`; a custom command's text as the command
    typed (`/review q.py`), where the record notes that text's digest; else `prompt` as it is."""
    pasted = [noted for _, _, noted in _entries(root, session_id) if noted.lengths or noted.digest]

    def shown(prompt: str) -> str:
        said = secrets.redact(prompt)
        return next((noted.line for noted in pasted if noted.sent(said) or noted.lengths
                     and noted.pastes(said) is not None), prompt)

    return shown
