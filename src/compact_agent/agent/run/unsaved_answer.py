"""An answer the model gave that the session could not save: kept in the conversation, shown, said.

The library saves a run's answer at the run's end; when that save fails (a full disk), it raises
`HistoryNotSaved` with the whole history it was to save, the answer in it. The turn reloaded the
session file instead, which ends at the user's message: the answer was neither shown (print mode)
nor kept, and the next `-c` said the message got no answer. Now the turn goes on from the
conversation as it went (the next turn's save writes what the file lacks, when there is room by
then), marks the file where it stops, when even that small line can be written, so the next load
says what happened (`last_run.ANSWER_NOT_SAVED`), and raises `AnswerNotSaved` with the answer's text
for the REPL and print mode to show with one line that says it was received but not saved.

A save that fails before a later request of the turn, after the model's tool calls ran, is alike:
the history it raises with ends at their results, which the file lacks. Reloaded from the file, the
calls and results were dropped, and the line said only that the file could not be written. They are
kept in the conversation too (`keep_calls`), and `CallsNotSaved` names them for the line.
"""

from __future__ import annotations

import contextlib
from typing import TYPE_CHECKING, Protocol

from pydantic_ai.messages import (
    ModelMessage,
    ModelRequest,
    ModelResponse,
    TextPart,
    ToolCallPart,
    UserPromptPart,
)

from ...session.entries import from_the_model
from ...session.last_run import ANSWER_NOT_SAVED, CALLS_NOT_SAVED
from ...session.repair import handed_back
from ...words import plural

if TYPE_CHECKING:
    from ...context import HistoryNotSaved
    from .session_parts import SessionParts

    class KeptIn(SessionParts, Protocol):
        """What keeping an unsaved answer changes of the session (turn.py's `TurnSession`, which
        imports this module)."""

        messages: list[ModelMessage]
        turns: int

        def _save_read_state(self) -> None: ...


class AnswerNotSaved(OSError):
    """The model answered and the session could not save the answer. `output` is its text, `error`
    the library's `HistoryNotSaved` (its `cause` the session file's own error); `after_tools`: it
    answered the results of its tool calls, which the file holds (saved before the last request)."""

    def __init__(self, output: str, error: HistoryNotSaved, after_tools: bool = False) -> None:
        super().__init__(str(error))
        self.output, self.error, self.after_tools = output, error, after_tools

    def __str__(self) -> str:
        return str(self.args[0])


class CallsNotSaved(OSError):
    """The model's tool calls ran and the session could not save them and their results, before the
    request that was to send those. `tools` names the calls, in order; `error` is the library's
    `HistoryNotSaved`; `marked`: the session file marks them after the user's message, so a run that
    resumes it tells the user and the model that they ran (a full disk may keep even that line out)."""

    def __init__(self, tools: list[str], error: HistoryNotSaved, marked: bool = False) -> None:
        super().__init__(str(error))
        self.tools, self.error, self.marked = tools, error, marked

    def __str__(self) -> str:
        return str(self.args[0])

    def line(self, why: str, kept: bool) -> str:
        """The one line: the session file's words for the failed save (`why`), the calls it left out,
        and what becomes of them: `kept` (the REPL) in the conversation, else lost to `--continue`."""
        n = len(self.tools)
        names = ", ".join(dict.fromkeys(self.tools))  # each tool once, in the order called
        it, its, all_ = ("it", "its result", "both") if n == 1 else ("they", "their results", "them all")
        what = f"the model made {plural(n, 'tool call')} ({names}), and {it} and {its} are not saved"
        told = f"tells the model that {it} ran, not what {it} did" if self.marked else f"the model will not know what {it} did"
        then = (f": {it} {'is' if n == 1 else 'are'} kept in the conversation with {its}, and your next message saves "
                f"{all_} if the disk has room by then" if kept else f": --continue goes on from your message, and {told}")
        return f"{why}; {what}{then}"


def keep_calls(s: KeptIn, error: HistoryNotSaved) -> CallsNotSaved | None:
    """After a failed save before a request: the conversation as it went, the model's calls and their
    results in it (the next turn's save writes what the file lacks), and the exception that names
    them; None when what the file lacks holds no call of the model's (the turn's first request)."""
    saved = s.store.load().messages
    lost = error.messages[len(saved):]
    tools = [p.tool_name for m in lost if isinstance(m, ModelResponse) and from_the_model(m.metadata)
             for p in m.parts if isinstance(p, ToolCallPart)]
    if not tools:
        return None
    s.cm.resume(saved)  # what the file holds: the next save appends the rest
    s.messages = handed_back(list(error.messages))
    marked = False
    with contextlib.suppress(OSError):  # a run that ends here (-p): the next load says they ran (last_run.py)
        s.store.append_meta(**{CALLS_NOT_SAVED: tools})
        marked = True
    with contextlib.suppress(OSError):
        s._save_read_state()
    return CallsNotSaved(tools, error, marked)


def received(messages: list[ModelMessage]) -> ModelResponse | None:
    """The model's answer a history the store could not save ends with, if it ends with one (a
    failed save before a request ends with the request instead)."""
    last = messages[-1] if messages else None
    return last if isinstance(last, ModelResponse) and from_the_model(last.metadata) else None


def keep(s: KeptIn, error: HistoryNotSaved) -> AnswerNotSaved | None:
    """After a failed save at the run's end: the conversation as it went, the answer in it, and the
    exception that shows the answer; None when the history the save failed on ends with no answer."""
    answer = received(error.messages)
    if answer is None:
        return None
    s.messages = handed_back(list(error.messages))  # the library reads the file again at its next save
    s.turns += 1
    with contextlib.suppress(OSError):  # the disk that refused the answer may refuse this line too
        s.store.append_meta(**{ANSWER_NOT_SAVED: True})
    with contextlib.suppress(OSError):
        s._save_read_state()
    asked = error.messages[-2] if len(error.messages) > 1 else None  # what the answer answers
    after_tools = isinstance(asked, ModelRequest) and not any(isinstance(p, UserPromptPart) for p in asked.parts)
    return AnswerNotSaved(answer_text(answer), error, after_tools)


def answer_text(answer: ModelResponse) -> str:
    """The text of the model's answer, as a finished turn's output gives it."""
    return "".join(p.content for p in answer.parts if isinstance(p, TextPart))


def not_saved_line(why: str, then: str = "") -> str:
    """The one line: the session file's own words for the failed save (`why`), that the answer was
    received all the same, and `then`, what becomes of it where it is said."""
    return f"{why}; the model's answer was received but not saved{then}"


#: What print mode says becomes of the answer: it is the run's output, and `-c` has it not.
PRINTED = ": it is this run's output; --continue goes on from your message, without it"
#: … when it answered the results of the model's tool calls: the file holds those.
PRINTED_AFTER_TOOLS = ": it is this run's output; --continue goes on from the results of the model's tool calls, without it"
#: What the REPL says: it was shown as it came, and the next message saves it when it can.
SHOWN = ": it is shown above, and your next message saves it with the conversation if the disk has room by then"
