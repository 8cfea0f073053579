"""`-p` when the model answered and the session could not save the answer (a full disk): the answer
is the run's output all the same (stdout, or the JSON result's `result`), and one line on stderr says
it was received but not saved, and that `--continue` goes on without it (agent/run/unsaved_answer.py).
The run fails (exit 1): its session does not hold what it printed."""

from __future__ import annotations

import sys
from typing import TYPE_CHECKING, Any, Protocol

from .. import secrets
from ..agent.run.unsaved_answer import PRINTED, PRINTED_AFTER_TOOLS, AnswerNotSaved, not_saved_line
from .visible import visible

if TYPE_CHECKING:
    from ..agent.run.runner import AgentSession


class Run(Protocol):
    """What this says through of a print-mode run (print_mode.py's `PrintRun`, which calls it)."""

    format: str

    def note(self, text: str) -> None: ...
    def refused(self) -> int: ...
    def emit(self, obj: dict[str, Any]) -> None: ...
    def error_result(self, message: str, session_id: str | None, subtype: str = "error",
                     session: AgentSession | None = None) -> dict[str, Any]: ...


def shown(run: Run, session: AgentSession, e: BaseException, saved_id: str | None) -> int | None:
    """Print the answer `e` carries and say it was not saved: the exit code; None for another error.
    `saved_id`: the session's id for the JSON result, or None where nothing is saved in it."""
    from ..error_text import describe_error

    if not isinstance(e, AnswerNotSaved):
        return None
    line = not_saved_line(describe_error(e.error), PRINTED_AFTER_TOOLS if e.after_tools else PRINTED)
    if run.format == "text":
        sys.stdout.write(visible(secrets.redact(e.output.rstrip("\n"))) + "\n")
        sys.stdout.flush()
    run.refused()  # what it refused before, as any run that fails says it
    run.note(line)
    if run.format != "text":
        run.emit(run.error_result(line, saved_id, "error", session) | {"result": e.output})
    return 1
