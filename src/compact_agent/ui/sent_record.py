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

The record's format and its reading live below the REPL, in session/typed.py: the agent's note at
`--continue` names a session by its first prompt as typed too. Here: what the REPL writes, and how
it shows a prompt again by the record.
"""

from __future__ import annotations

import contextlib
import json
from collections.abc import Callable
from pathlib import Path

from .. import secrets
from ..appended_lines import append_line
from ..session.typed import Noted, digest, entries, record_path


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


def save(root: Path, session_id: str, index: int, preview: str, noted: Noted) -> None:
    from ..session.files import ensure_private_file

    path = record_path(root, session_id)
    if path is None:
        return
    entry = {"checkpoint": index, "preview": secrets.redact(preview), "line": noted.line,
             "pasted": noted.lengths, "lead": noted.lead, "trail": noted.trail,
             **({"digest": noted.digest} if noted.digest else {})}
    line = (json.dumps(entry, ensure_ascii=False) + "\n").encode("utf-8", errors="replace")
    with contextlib.suppress(OSError):  # after a line torn by a crash, on a line of its own
        append_line(ensure_private_file(path), line)


def load(root: Path, session_id: str, index: int, preview: str) -> Noted | None:
    """The latest note of the prompt of checkpoint `index` whose preview is `preview` (a turn
    rewound and sent again is noted again; another prompt that took its number has another)."""
    said = secrets.redact(preview)
    return next((noted for at, was, noted in entries(root, session_id) if at == index and was == said), None)


def shown_as(root: Path, session_id: str) -> Callable[[str], str]:
    """How a prompt of the session `session_id` was shown when it was sent: `prompt` (as the
    conversation holds it) with each of its pastes as its placeholder again, where the record notes
    one whose words and paste lengths give exactly `prompt`; a custom command's text as the command
    typed (`/review q.py`), where the record notes that text's digest; else `prompt` as it is."""
    pasted = [noted for _, _, noted in entries(root, session_id) if noted.lengths or noted.digest]

    def shown(prompt: str) -> str:
        said = secrets.redact(prompt)
        sent = digest(said) if any(noted.digest for noted in pasted) else None  # once, not once a note
        return next((noted.line for noted in pasted if noted.digest and noted.digest == sent or noted.lengths
                     and noted.pastes(said) is not None), prompt)

    return shown
