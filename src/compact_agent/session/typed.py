"""How a session's prompt was typed, where the conversation holds what was sent: `/review q.py`
for the text of the custom command that line ran, `/init` for the prompt we send behind that
command, the words typed after a `!cmd` before its output (shell_message.py).

The custom command is known by the record of sent prompts beside the project's sessions
(`sent_prompts/<session>.jsonl`, which ui/sent_record.py writes as each prompt is sent): its entries
and their format are read here, below both the REPL, which lists past prompts by them (/history,
the resumed view, the sessions list), and the command line, whose note at `--continue` names a
session by its first prompt (cli_resume.py). The record is a help: a failure to read it says
nothing, and a prompt it does not note is shown as the conversation has it.
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from .. import secrets
from ..regular_file import read_own
from ..shell_message import as_typed_with_output

#: The record's folder, beside the project's sessions.
FOLDER = "sent_prompts"
#: The characters of a prompt a checkpoint keeps as its preview (agent/tools/checkpoints.py).
PREVIEW_CHARS = 120
#: The first words of the prompt `/init` sends (ui/more_commands.py's INIT_PROMPT).
INIT_START = "Look at this repository and write an AGENTS.md"


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


def record_path(root: Path, session_id: str) -> Path | None:
    """The record of the session `session_id` of the project's folder of sessions `root`; None for
    an id that would name a file elsewhere."""
    if not session_id or session_id.startswith(".") or "/" in session_id or "\\" in session_id:
        return None
    return root / FOLDER / f"{session_id}.jsonl"


def entries(root: Path, session_id: str) -> Iterator[tuple[int, str, Noted]]:
    """(checkpoint, preview, note) of each prompt the record of `session_id` holds, newest first."""
    path = record_path(root, session_id)
    if path is None:
        return
    try:  # a regular file only, capped: a FIFO or /dev/zero in its place is no record (regular_file.py)
        lines = read_own(path).decode("utf-8", errors="replace").splitlines()
    except OSError:
        return
    for raw in reversed(lines):
        try:
            e = json.loads(raw)
            lengths = {str(p): int(n) for p, n in e["pasted"].items()}
            noted = Noted(str(e["line"]), lengths, str(e.get("lead", "")), str(e.get("trail", "")),
                          str(e.get("digest", "")))
            yield e["checkpoint"], e["preview"], noted
        except (ValueError, KeyError, TypeError, AttributeError, RecursionError):
            continue  # a line cut by a kill, or written by another version (or nested past the parser's depth)


def preview(prompt: str) -> str:
    """A prompt as its checkpoint keeps it (Checkpoints.begin): on one line, redacted, cut."""
    line = " ".join(secrets.redact(prompt).split())
    return line[:PREVIEW_CHARS - 1] + "…" if len(line) > PREVIEW_CHARS else line


def first_typed(root: Path, session_id: str, prompt: str) -> str | None:
    """The command typed for `prompt`, the first prompt of the session `session_id` as a listing
    of sessions has it (its first words, one line), where the record notes a custom command whose
    text begins so: `/review q.py`; else None. Of two such notes, the earlier checkpoint's."""
    said = preview(prompt)
    found = [(at, noted.line) for at, was, noted in entries(root, session_id) if noted.digest and was == said]
    first = min((at for at, _ in found), default=None)
    return next((line for at, line in found if at == first), None)  # the newest note of that checkpoint


def as_typed(prompt: str) -> str:
    """A prompt as the user typed it: `/init` for the prompt we send behind that command (the
    user never wrote it), the words typed after a `!cmd` before its output, anything else as it is."""
    return "/init" if prompt.startswith(INIT_START) else as_typed_with_output(prompt)


def first_as_typed(root: Path, session_id: str, prompt: str) -> str:
    """`prompt`, the first prompt of the session `session_id` as session/listing.py reads it, as
    the user typed it: the custom command line the record notes for it (`/review q.py`), else
    `as_typed`. What the sessions list and `--continue`'s note name a session by."""
    return (first_typed(root, session_id, prompt) if prompt else None) or as_typed(prompt)
