"""`-p` when the model answered and the session could not save the answer (a full disk): the answer
is the run's output all the same (stdout, or the JSON result's `result`), and one line on stderr says
it was received but not saved, and that `--continue` goes on without it (agent/run/unsaved_answer.py).
The run fails (exit 1): its session does not hold what it printed."""

from __future__ import annotations

import sys
from typing import TYPE_CHECKING

from .. import secrets
from ..agent.run.unsaved_answer import PRINTED, PRINTED_AFTER_TOOLS, AnswerNotSaved, not_saved_line
from .visible import visible

if TYPE_CHECKING:
    from ..agent.run.runner import AgentSession
    from .print_mode import PrintRun


def shown(run: PrintRun, session: AgentSession, e: BaseException) -> int | None:
    """Print the answer `e` carries and say it was not saved: the exit code; None for another error."""
    from ..error_text import describe_error
    from .print_mode import saved_id

    if not isinstance(e, AnswerNotSaved):
        return None
    line = not_saved_line(describe_error(e.error), PRINTED_AFTER_TOOLS if e.after_tools else PRINTED)
    if run.format == "text":
        sys.stdout.write(visible(secrets.redact(e.output.rstrip("\n"))) + "\n")
        sys.stdout.flush()
    run.note(line)
    if run.format != "text":
        run.emit(run.error_result(line, saved_id(session), "error", session) | {"result": e.output})
    return 1
