"""`-p "/compact"`: a slash command run in print mode instead of a turn (print_commands.py finds
it): its output on stdout, or as a JSON result's text, laid out for where it goes, and its exit code
(print_mode.py, which calls it, says its failures)."""

from __future__ import annotations

import contextlib
import io
import sys
from collections.abc import Callable
from dataclasses import replace
from typing import TYPE_CHECKING, Any, Protocol

from pydantic_ai.usage import RunUsage

from .. import retry_notice
from ..models import UsageError
from ..stop_signals import CONTINUES, continues
from . import print_commands

if TYPE_CHECKING:
    from ..agent.run.runner import AgentSession
    from ..context import CompactionResult


class Run(Protocol):
    """What a slash command's run goes through of print mode's `PrintRun`."""

    format: str
    denied: list[str]
    verbose: bool

    def emit(self, obj: dict[str, Any]) -> None: ...
    def trace(self, text: str) -> None: ...
    def result(self, s: AgentSession, output: str, usage: RunUsage, compactions: list[CompactionResult],
               cut: bool = False) -> dict[str, Any]: ...


#: After an error a retry may get past: the session is saved, and how to go on.
RETRY_HINT = "; " + CONTINUES
#: After an error a retry would only repeat (an HTTP 400): saved, no retry offered, and what could
#: change: what the provider's message names, before `-c` goes on; or the prompt, in a new session.
KEPT_HINT = ("; the session is saved with the prompt; sent as it is, it would be refused again: change what the "
             "provider's message names (--model, a setting) and `compact-agent -c -p ...` continues it, or send "
             "another prompt without -c")


def hints(session_id: str | None, opened_by_c: bool) -> tuple[str, str]:
    """RETRY_HINT and KEPT_HINT for the session the prompt is saved in; one `-c` does not open (a
    new session the model has not answered in, while an older one it answered in is there) is named
    by its `-r ID`."""
    if session_id is None or opened_by_c:
        return RETRY_HINT, KEPT_HINT
    by_id = f"-r {session_id}"
    return "; " + continues(session_id), KEPT_HINT.replace("-c -p", f"{by_id} -p").replace("without -c", "without -r")


JSON_TEXT_WIDTH = 1_000
"""Columns a slash command's output is laid out in for a JSON result: no line of it is cut."""


async def run_slash(run: Run, session: AgentSession, line: str, failed: Callable[[str, int], int],
                    refused: Callable[[], int]) -> int:
    """A slash command instead of a turn: its refusal (bad arguments, a command of the REPL's own
    session, a value that cannot work: `/model NAME --window 2k`) is bad usage, exit 2, as a bad
    flag is; a failure while it runs is exit 1. `failed(message, code)` says a failure and gives
    its exit code; `refused()` says the actions refused (exit 3)."""
    from ..error_notes import note_model
    from ..error_text import describe_error
    from ..session.answered import continued_id
    from .command_registry import CommandError
    from .plain_console import PlainConsole
    from .render import SafeConsole
    from .trimmed_lines import trimmed

    shown = io.StringIO()  # json and stream-json: what the command shows is the result's text
    # Text goes to a terminal at its width, to a file or pipe at 80 columns; a JSON result's text is
    # not laid out for a screen: no line of prose is cut at 80 columns for a script to join again.
    width = (None if sys.stdout.isatty() else 80) if run.format == "text" else JSON_TEXT_WIDTH
    out = sys.stdout if sys.stdout.isatty() else trimmed(sys.stdout)  # not padded to 80 columns
    made = SafeConsole if run.format == "text" else PlainConsole  # a JSON result's tables: no box drawing
    console = made(file=out if run.format == "text" else shown, highlight=False, markup=False,
                   soft_wrap=False, width=width)
    usage, compactions = replace(session.usage), len(session.cm.compactions)  # what the command adds (/init, /compact)
    try:  # the caller closes the session
        # --verbose says a refused request's wait (/compact's summary, /init's turn), as for a turn
        with retry_notice.telling(run.trace) if run.verbose else contextlib.nullcontext():
            await print_commands.run(session, line, console)  # /help: what print mode takes
    except (CommandError, UsageError) as e:  # UsageError: a value it was given that cannot work (--window 2k)
        return failed(str(e), 2)
    except Exception as e:  # noqa: BLE001
        note_model(e, session.info.name, session.opts.config)  # /init's turn, /compact's summary
        if session.store.keeps_nothing():  # /init's request alone, failed: the session goes as the run ends
            return failed(describe_error(e, "", ""), 1)
        saved = session.session_id if session.store.path.exists() else None  # -r ID where -c opens another
        return failed(describe_error(e, *hints(saved, saved is None or continued_id(session.store.root) == saved)), 1)
    if run.format != "text":
        text = "\n".join(line.rstrip() for line in shown.getvalue().rstrip("\n").splitlines())
        run.emit(run.result(session, text, _since(usage, session.usage),
                            session.cm.compactions[compactions:]))
    return refused() if run.denied else 0


def _since(before: RunUsage, now: RunUsage) -> RunUsage:
    """The model requests made after `before` (a command's turn: /init), in the fields the result shows."""
    return RunUsage(requests=now.requests - before.requests, input_tokens=now.input_tokens - before.input_tokens,
                    output_tokens=now.output_tokens - before.output_tokens,
                    cache_read_tokens=now.cache_read_tokens - before.cache_read_tokens)
