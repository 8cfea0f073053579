"""`compact-agent -p` from the command line: the prompt saved and the signals armed for the run
before the seconds of its start-up, then the run itself (ui/print_mode.py) and its exit code.

Apart from cli.py, which parses and checks the command line for both modes, and from
ui/print_mode.py, which needs pydantic-ai: what happens here comes before that import, so a
SIGTERM, SIGHUP or Ctrl-C in those seconds still says in one line whether the prompt is saved
(stop_signals.py), and a prompt typed is on disk before anything can lose it (early_prompt.py).
The seconds before, while the command line itself loads, are covered by `__main__.py`, which
arms SIGTERM and SIGHUP first thing (a run started as `python -m compact_agent.cli` has them from here).
"""

from __future__ import annotations

import asyncio
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from .agent.run.options import SessionOptions


def run_print_mode(opts: SessionOptions, query: str, output_format: str, verbose: bool, typed: str) -> int:
    """Run `query` as one print-mode turn (or slash command); the exit code. `typed` is the part
    of it the user typed (the query argument), the only place `@path` attaches a file."""
    saved_in = problem = None
    from .stop_signals import held, interrupted, prompt_saved, say_when_terminated

    # SIGTERM, SIGHUP: one line that says whether the prompt is saved (and json's result object)
    say_when_terminated(json_result=output_format != "text")
    try:  # Ctrl-C: the same line (the command-line library ended with 130 and no word)
        if not query.lstrip().startswith("/"):  # a command, or a prompt only run_print can tell
            from .early_prompt import save_early

            # Before the seconds of imports and start-up a Ctrl-C could otherwise lose it in.
            with held():
                saved_in, problem = save_early(opts, query)
                prompt_saved(saved_in is not None and saved_in.entry_id is not None,
                             saved_in.session_id if saved_in is not None else None,
                             saved_in is not None and not opened_by_c(opts, saved_in.session_id))
        from .models import KEY_WHEN_SENT
        from .ui.print_commands import command_name, slash_command
        from .ui.print_mode import run_print

        # A built-in command: the key is checked when it is about to send a request (`/cost` sends none);
        # /init's turn, at once, as a prompt's: it would be left in the session, unanswered
        later = KEY_WHEN_SENT.set(slash_command(query) is not None and command_name(query) != "init")
        try:
            code = asyncio.run(run_print(opts, query, output_format, verbose, typed=typed, saved_in=saved_in,
                                       unsaved=problem))
        finally:
            KEY_WHEN_SENT.reset(later)
    except KeyboardInterrupt:
        code = interrupted()
    return code


def opened_by_c(opts: SessionOptions, session_id: str) -> bool:
    """Whether `-c` opens session `session_id` (a new one the model has not answered in is passed
    over while an older one it answered in is there): what a failure says goes on with it."""
    from .agent.run.options import session_root
    from .session.answered import continued_id

    return continued_id(session_root(opts.cwd.resolve(), opts.home)) == session_id
