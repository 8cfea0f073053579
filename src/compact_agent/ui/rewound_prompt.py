"""The prompt `/rewind N` puts back in the input: as it was shown when it was sent, a large paste
in it behind its placeholder again (`[pasted 200 lines]`), one unit that goes whole with Enter.

A checkpoint keeps only a preview of its prompt (the first 120 characters, on one line: what
`/rewind` lists). That preview was what the input got back: a question under a 20-line log came
back as one line of the log's first words and `…`, and Enter sent that to the model. The REPL now
remembers each prompt it sent, as shown and with the pastes it held, by the checkpoint its turn
made; a command that ran a turn (`/init`, a custom `/review src`) comes back as it was typed. A
prompt sent by an earlier run of the REPL (`--continue`) comes back the same, from the record that
run kept of it (sent_record.py: the line shown, and its pastes taken from the conversation). One
sent before that record was kept comes back from the conversation, whole, behind one placeholder
when it is as large as a paste that would have been; one sent before a compaction, from the
transcript that compaction archived (`rewinding.indexed_by`), where a long one is whole (the
compaction carries it cut, and its preview came back: Enter sent the first 120 characters). Where
none holds it (that archive is gone, or `!cmd` output went with it) the preview comes back.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from .. import secrets
from ..session.typed import preview
from ..shell_message import SHELL_HEAD
from . import sent_record
from .pastes import Pastes

if TYPE_CHECKING:  # imported by the REPL before pydantic-ai is (repl_start.py loads it in a thread)
    from pydantic_ai.messages import ModelMessage

    from ..agent.tools.checkpoint_entry import Checkpoint


@dataclass
class SentPrompts:
    """The prompts this REPL sent, as shown with their pastes, by (session id, checkpoint index),
    each with its checkpoint's preview (another turn that took the number since has another).
    `root`: the project's folder of sessions, where a later run finds them (sent_record.py)."""

    shown: dict[tuple[str, int], tuple[str, dict[str, str], str]] = field(default_factory=dict)
    root: Path | None = None

    def remember(self, session_id: str, cp: Checkpoint, line: str, held: dict[str, str],
                 sent: str | None = None) -> None:
        """`sent`: the prompt a command typed as `line` sent (sent_record.note)."""
        self.shown[(session_id, cp.index)] = (line, dict(held), cp.prompt)
        if self.root is not None:
            sent_record.save(self.root, session_id, cp.index, cp.prompt, sent_record.note(line, held, sent))

    def shown_line(self, session_id: str, cp: Checkpoint) -> str | None:
        """The prompt of `cp` as it was shown when sent, on one line (None: not known), for `/rewind`
        to list and ask by: 'look: [pasted 20 lines] what failed?' and '/review src', where the
        checkpoint's preview is the log's first words and the command's text."""
        said = secrets.redact(cp.prompt)
        line = None
        if (kept := self.shown.get((session_id, cp.index))) is not None and secrets.redact(kept[2]) == said:
            line = kept[0]
        elif self.root is not None and (noted := sent_record.load(self.root, session_id, cp.index, cp.prompt)):
            line = noted.line
        return " ".join(secrets.redact(line).split()) if line is not None else None

    def give_back(self, session_id: str, cp: Checkpoint, messages: Sequence[ModelMessage] | None,
                  pastes: Pastes) -> str:
        """What the input starts with after rewinding to before `cp`, its pastes held in `pastes`.
        `messages`: the conversation `cp` indexes, before the rewind cuts it (`rewinding.indexed_by`:
        for a checkpoint made before a compaction, the transcript it archived); None: not known."""
        said = secrets.redact(cp.prompt)
        for index in [i for i in self.shown if i[0] == session_id and i[1] >= cp.index]:
            line, held, was = self.shown.pop(index)  # the turns rewound are gone; later ones reuse the numbers
            if index[1] == cp.index and secrets.redact(was) == said:
                return pastes.hold_again(secrets.redact(line), {p: secrets.redact(t) for p, t in held.items()})
        whole = _sent_text(cp, messages, said)
        noted = sent_record.load(self.root, session_id, cp.index, cp.prompt) if self.root is not None else None
        if noted is not None and not noted.lengths:
            return noted.line  # typed, or a command that ran a turn: as it was typed
        if noted is not None and whole is not None and (again := noted.pastes(secrets.redact(whole))) is not None:
            return pastes.hold_again(noted.line, again)  # sent by an earlier run: its pastes as they were
        return said if whole is None else pastes.insert(secrets.redact(whole))


def pastes_expanded(line: str, held: dict[str, str]) -> str:
    return Pastes(dict(held)).expand(line)


def shell_output_of(cp: Checkpoint, messages: Sequence[ModelMessage] | None) -> str | None:
    """The `!cmd` output that went with `cp`'s prompt, as it went (the text before the prompt), for
    `/rewind` to hold for the next message again: it came back without it, and the message sent
    again went without what the commands had printed. None when none went with it. `messages`: the
    conversation `cp` indexes (as `SentPrompts.give_back` takes it)."""
    said = secrets.redact(cp.prompt)
    for text in _prompts_after(cp, messages):
        if text.startswith(SHELL_HEAD):
            cuts = [m.start() for m in re.finditer("\n\n", text)]
            return next((text[:at] for at in cuts if preview(text[at + 2:]) == said), None)
    return None


def _sent_text(cp: Checkpoint, messages: Sequence[ModelMessage] | None, said: str) -> str | None:
    """The prompt of `cp` whole, from the conversation it indexes (None: not known, not there, or not
    only what was typed)."""
    return next((text for text in _prompts_after(cp, messages) if preview(text) == said), None)


def _prompts_after(cp: Checkpoint, messages: Sequence[ModelMessage] | None) -> Iterator[str]:
    """The text of each user prompt part in the conversation `cp` indexes, from where `cp` cut it: among
    its next 40 messages (after the hooks' context, the files attached)."""
    from pydantic_ai.messages import ModelRequest, UserPromptPart

    from ..context.layers.snip import prompt_text

    for message in (messages or ())[cp.history_len:cp.history_len + 40]:
        for part in message.parts if isinstance(message, ModelRequest) else ():
            if isinstance(part, UserPromptPart) and (text := prompt_text(part)) is not None:
                yield text
