"""A print-mode run or the REPL ended by SIGTERM or SIGHUP says so in one line before it goes.

A run that fails, or stops at `--max-turns`, ends with the line that says its session is saved and
how to go on with it; one killed by `kill` or a timeout (`timeout 60 compact-agent -p ...`) ended
with nothing on stderr, and a script's log did not say whether the prompt was kept. Nothing needs
saving at that instant — every append is fsynced when it is written — so the handler only says
so and then ends the process by the same signal, with its default action: the parent sees what it
always saw (killed by SIGTERM, 143 in a shell), and nothing else runs (no cleanup that could hang
on a held request). A signal the process was started ignoring (`nohup`) stays ignored.

While the prompt is being saved (`held`) a signal waits for the save to end, so the line says
whether the prompt is in its session, never that it is when its write was cut short.

With `--output-format json` or `stream-json` stdout ends with a result object too, as a failed
run's does (`subtype` "error_terminated", the signal, the session): a script that parses the last
line of stdout got nothing. Print mode adds what it knows by then (`reporting`); one written
already (the run had ended) is not written twice. The key is redacted from it, as from print mode's own.
What the run refused before the signal (print mode does not ask) is said on stderr before the line,
as a run that ends says it: only the result object listed it, and a text run said nothing of it.

Ctrl-C (SIGINT) in print mode says the same, as "interrupted" (`interrupted`), and exits 130: it
comes as a KeyboardInterrupt that unwinds the run first (asyncio cancels the turn), which the
command-line library ended with 130 and no word.

One that comes as the interpreter exits, the run over and its output written, is ignored
(`_exiting`): Python puts the default action back as it tears down, which ended a finished run by
the signal with no line.

The REPL (ui/repl_signals.py) says how its own session goes on (`continues`) and puts the terminal
back first (`first`): cooked mode, as the shell it returns to expects.

A command the bash tool (or `!cmd`) is running has its own process group, which no signal to the
agent reaches: it is killed first, as Esc and Ctrl-C kill it (agent/tools/shell_groups.py), and
then what the turn has not saved yet is saved (`saving`: the model's answer whose tool calls were
running, with a result for each that says the run ended), so the next run goes on from there.
A signal that comes while the session store writes (`writing`) waits for the write, and the step
that made it, to end first: the save never writes into the middle of another write.
A file a tool (or `/rewind`) is writing is left as it was, and the temp beside it that held the
new text is removed (agent/tools/temp_files.py): no clean-up of the write runs after the handler.

Nothing here imports pydantic-ai: the command line installs it before anything heavy is loaded.
"""

from __future__ import annotations

import atexit
import contextlib
import functools
import json
import os
import select
import signal
import sys
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from types import FrameType
from typing import Any, TypeVar, cast

from . import secrets
from .agent.tools import shell_groups, temp_files
from .ui.visible import json_visible, visible

#: How a run whose prompt is in its session says it can go on: the words of print mode's failures.
CONTINUES = "the session is saved: `compact-agent -c -p ...` continues it"


def continues(session_id: str | None = None) -> str:
    """CONTINUES; for session `session_id`, one `-c` does not open (a session the model has not
    answered in, while an older one it answered in is there: session/answered.py), the `-r ID`
    that does."""
    return CONTINUES if session_id is None else CONTINUES.replace("-c -p", f"-r {session_id} -p")


SIGNALS = (signal.SIGTERM, signal.SIGHUP)

#: The exit status of a print-mode run stopped by Ctrl-C (`interrupted`): 128 + SIGINT.
EXIT_INTERRUPTED = 130

#: How long the result object waits for a reader of stdout that is not reading: the end is not held up.
STDOUT_WAIT_S = 5.0

#: How long the interpreter's exit may take once SIGTERM and SIGHUP are ignored (`_exiting`): a
#: teardown that hangs (an exit callback that waits on something, a write to a pipe nobody reads; not
#: the join of the threads, which comes before the exit callbacks, while SIGTERM still ends it) is ended by
#: SIGALRM's default action then, since the signals a supervisor sends no longer would.
EXIT_WATCHDOG_S = 10.0


@dataclass
class _State:
    saved: bool = False  # the prompt is in its session
    holding: bool = False  # the prompt is being saved, a result written: a signal waits
    pending: int | None = None  # the signal that came meanwhile
    json_result: bool = False  # stdout ends with a result object (json, stream-json)
    session_id: str | None = None  # the session the prompt is saved in
    by_id: bool = False  # `-c` does not open that session: the line names `-r ID`
    fields: Callable[[], dict[str, Any]] | None = None  # what print mode adds to the result object
    refused: Callable[[], str | None] | None = None  # print mode's line of what it refused, before ours
    result_written: bool = False  # the run wrote its own result: none is added
    continues: Callable[[], str | None] | None = None  # how the session goes on, if saved (else CONTINUES)
    first: Callable[[], None] | None = None  # before the line: the REPL puts the terminal back
    last_save: Callable[[str], object] | None = None  # what the turn running saves at the end (`saving`)
    cut_off: bool = False  # what it saved is the reply being written, cut off by the signal (`reply_cut`)
    starting: int = 0  # commands being started, their groups not yet known: a signal waits (`deferred`)
    writing: int = 0  # session store writes under way: a signal waits, and its save comes after (`writing`)
    started: float = field(default_factory=time.monotonic)


_state = _State()


def say_when_terminated(json_result: bool = False, continues: Callable[[], str | None] | None = None,
                        first: Callable[[], None] | None = None) -> None:
    """From now on SIGTERM and SIGHUP print `compact-agent: terminated (SIGTERM)` — with `;
    CONTINUES` once `prompt_saved` said so, or with what `continues()` says — then end the process
    by that signal. `json_result`: a result object saying so ends stdout first; `first()` runs
    before anything is written."""
    _state.json_result, _state.continues, _state.first = json_result, continues, first
    _state.started = time.monotonic()
    for sig in SIGNALS:
        with contextlib.suppress(ValueError, OSError):  # not the main thread: no handler, as before
            if signal.getsignal(sig) is not signal.SIG_IGN:
                signal.signal(sig, _on_signal)
    atexit.unregister(_exiting)  # once
    atexit.register(_exiting)


def _exiting() -> None:
    """At the interpreter's exit, the run over: what stdout and stderr still buffer goes out, then
    SIGTERM and SIGHUP are ignored. Python puts the default action back in place of our handler
    as it tears itself down (its modules: a while, with pydantic-ai loaded), and a signal then
    ended a run that had finished and printed its answer by the signal's default action: 143 or 129
    in a shell, and no line. Called after the exit callbacks registered later than the handler (so
    a signal still ends those, and a flush a reader that does not read holds up), before the others.
    A teardown that then hangs is ended after EXIT_WATCHDOG_S by SIGALRM."""
    with contextlib.suppress(Exception):  # a reader gone: the exit says so as before
        sys.stdout.flush()
        sys.stderr.flush()
    ignored = False
    for sig in SIGNALS:
        with contextlib.suppress(ValueError, OSError):
            if signal.getsignal(sig) is _on_signal:
                signal.signal(sig, signal.SIG_IGN)
                ignored = True
    if ignored:  # a teardown that hangs is still ended (EXIT_WATCHDOG_S)
        with contextlib.suppress(ValueError, OSError):
            signal.setitimer(signal.ITIMER_REAL, EXIT_WATCHDOG_S)


def prompt_saved(saved: bool, session_id: str | None = None, by_id: bool = False) -> None:
    """Whether the run's prompt is in its session (what the line says of it), and which session;
    `by_id`: `-c` does not open it, so the line names it (`continues`)."""
    _state.saved = saved
    if saved:
        _state.session_id, _state.by_id = session_id, by_id


def passed_over(session_id: str) -> bool | None:
    """Whether `-c` passed session `session_id` over when the run saved its prompt there (`prompt_saved`);
    None when the run saved none there. Only a reply since can change it: a failure asks no more."""
    return _state.by_id if _state.saved and _state.session_id == session_id else None


def reporting(fields: Callable[[], dict[str, Any]], refused: Callable[[], str | None] | None = None) -> None:
    """`fields()` goes into the result object of a run terminated from now on (its session, its
    requests so far); if it fails the object is written without them. `refused()`: the line (without
    `compact-agent: `) of the actions the run refused and has not said yet, said before the signal's."""
    _state.fields, _state.refused = fields, refused


def result_written() -> None:
    """The run wrote its result object: a signal now adds none. (Said within `held`, with the write:
    a signal between the two would write a second one or none.)"""
    _state.result_written = True


@contextlib.contextmanager
def saving(save: Callable[[str], object]) -> Iterator[None]:
    """Within the block, a run ended by SIGTERM or SIGHUP calls `save(signal name)` after killing the
    commands running and before its line: what the turn running has not saved yet goes to its
    session. It must be quick and must not wait on the event loop (the process ends right after)."""
    previous, _state.last_save = _state.last_save, save
    try:
        yield
    finally:
        _state.last_save = previous


def reply_cut() -> None:
    """The save (`saving`) kept the part of the reply that had come, cut off by the signal: the
    result object says `cut_off`, as it does of an answer that stopped at the model's output limit."""
    _state.cut_off = True


@contextlib.contextmanager
def deferred() -> Iterator[None]:
    """A SIGTERM or SIGHUP that comes while a command is being started ends the run once the block
    is over: the command runs before its process group is known and listed (shell_groups.py), and
    the signal would have left it running. Blocks may overlap (commands started side by side)."""
    _state.starting += 1
    try:
        yield
    finally:
        _state.starting -= 1
        if _free() and _state.pending is not None:
            _end(_pending())


@contextlib.contextmanager
def held() -> Iterator[None]:
    """A signal that comes while the prompt is being saved (or a result object written) ends the
    run once that is over. Ctrl-C too: its KeyboardInterrupt (or asyncio's cancel) comes after, so
    the save is never cut short and the line can say the prompt is saved."""
    _state.holding = True
    ctrl_c: list[int] = []
    previous = _hold_sigint(ctrl_c)
    try:
        yield
    finally:
        _state.holding = False
        if previous is not None:
            signal.signal(signal.SIGINT, previous)
        if _free() and _state.pending is not None:
            _end(_pending())
        if ctrl_c:  # to the handler in place again: Python's KeyboardInterrupt, or asyncio's
            signal.raise_signal(signal.SIGINT)


F = TypeVar("F", bound=Callable[..., Any])


def writing(write: F) -> F:
    """A session store's write (the decorated method): a SIGTERM or SIGHUP that comes while it runs
    ends the run once it is over, and the save the signal makes (`saving`) comes after it: run in
    the signal's handler, between two steps of the write, it wrote into the middle of it (an append
    inside an append, a close saved against a file being rewritten by a compaction). Once the write
    is over the end waits for the code that made it to finish its step (the event loop's next turn),
    so what the save goes by (what the store is known to hold) is up to date."""

    @functools.wraps(write)
    def guarded(*args: Any, **kwargs: Any) -> Any:
        _state.writing += 1
        try:
            return write(*args, **kwargs)
        finally:
            _state.writing -= 1
            if _free() and _state.pending is not None:
                _end_soon(_pending())

    return cast(F, guarded)


def _free() -> bool:
    """Nothing holds a signal back: no prompt being saved (`held`), no command being started
    (`deferred`), no session store write under way (`writing`)."""
    return not _state.holding and not _state.starting and not _state.writing


def _pending() -> int:
    """The signal that waited, taken: the end it makes runs once (its save writes, and waits for none)."""
    signum, _state.pending = _state.pending, None
    assert signum is not None
    return signum


def _end_soon(signum: int) -> None:
    """End by `signum` after the step running now: on the event loop's next turn when one runs in
    this (the main) thread, by the handler again from another thread, else now. The handler again
    in both cases: a command the step began to start meanwhile (`deferred`, across an await) holds it
    back until its group is listed, else it outlived the run (a PostCompact hook right after a
    compaction's rewrite)."""
    if threading.current_thread() is not threading.main_thread():
        os.kill(os.getpid(), signum)  # the handler runs in the main thread, which writes nothing now
        return
    import asyncio  # loaded by then; not at the start, which installs the handler before anything heavy

    try:
        asyncio.get_running_loop().call_soon(_on_signal, signum, None)
    except RuntimeError:  # no loop: nothing else is under way
        _end(signum)


def _hold_sigint(ctrl_c: list[int]) -> Any:
    """Have SIGINT noted in `ctrl_c` instead of handled; the handler to put back (None: none was
    replaced — not the main thread, ignored, or one not set from Python)."""
    with contextlib.suppress(ValueError, OSError):
        previous = signal.getsignal(signal.SIGINT)
        if previous is not None and previous is not signal.SIG_IGN:
            signal.signal(signal.SIGINT, lambda _signum, _frame: ctrl_c.append(1))
            return previous
    return None


def _on_signal(signum: int, _frame: FrameType | None) -> None:
    if not _free():
        _state.pending = signum
        return
    _end(signum)


def interrupted(json_result: bool = False) -> int:
    """Ctrl-C (SIGINT) ended a print-mode run: the same line and result object as SIGTERM's, with
    "interrupted" and the subtype "error_interrupted"; the exit status to end with, 130 (128 +
    SIGINT, as a shell reports it). The run has unwound by then (the command line catches the
    KeyboardInterrupt), so it exits with that status rather than being killed by the signal.
    `json_result`: the run asked for a result object although nothing armed one yet (a Ctrl-C as
    the command line is read, in a process not started by `__main__`)."""
    _state.json_result = _state.json_result or json_result
    _say("interrupted", "SIGINT", "error_interrupted")
    return EXIT_INTERRUPTED


def nothing_spent() -> dict[str, object]:
    """The spending fields of a result object (docs/usage.md) for a run that ended before its
    session was opened: no request made, nothing spent, nothing compacted, refused or written to an
    instruction file. Every result object has them, so a script reads `usage` of a failed run as of
    any other."""
    return {"num_turns": 0, "refused_requests": 0, "total_cost_usd": 0.0,
            "usage": {"input_tokens": 0, "output_tokens": 0, "cache_read_tokens": 0, "requests": 0,
                      "summary_requests": 0, "memory_requests": 0},
            "compactions": [], "permission_denials": [], "permission_denial_details": [],
            "instruction_files_changed": [], "learned_window": None}


def _end(signum: int) -> None:
    name = signal.Signals(signum).name
    shell_groups.kill_all()  # the commands running: in their own groups, the signal never reached them
    temp_files.remove_all()  # a file being written: its temp stayed in the project, as large as the write
    if _state.last_save is not None:
        with contextlib.suppress(Exception):  # unsaved, it is what a kill leaves: the line still goes
            _state.last_save(name)
    _say(f"terminated ({name})", name, "error_terminated")
    signal.signal(signum, signal.SIG_DFL)
    os.kill(os.getpid(), signum)


def _say(what: str, name: str, subtype: str) -> None:
    """The one line on stderr (and with json output the result object first): what ended the run
    and, once its prompt is saved, how its session goes on."""
    tail = continues(_state.session_id if _state.by_id else None) if _state.saved else None
    if _state.continues is not None:
        with contextlib.suppress(Exception):  # what cannot be told is left out: the line still goes
            tail = _state.continues()
    said = what + (f"; {tail}" if tail else "")
    line = f"compact-agent: {said}"
    if _state.first is not None:
        with contextlib.suppress(Exception):
            _state.first()
    if _state.json_result:
        with contextlib.suppress(Exception):  # a result line written while the signal waited goes out
            sys.stdout.flush()
        if not _state.result_written:
            _write_result(said, name, subtype)
    with contextlib.suppress(Exception):  # what is still buffered goes first
        sys.stderr.flush()
    lines = [line]
    if _state.refused is not None:
        with contextlib.suppress(Exception):  # what cannot be told is left out: the line still goes
            if (refused := _state.refused()) is not None:  # as the run's end says it, before the last line
                lines.insert(0, visible(secrets.redact(f"compact-agent: {refused}")))
    with contextlib.suppress(OSError):  # a terminal that hung up takes nothing: the end is the same
        os.write(2, "".join(f"{said}\n" for said in lines).encode())


def _write_result(said: str, name: str, subtype: str) -> None:
    """The result object of a terminated run, as the last line of stdout: after what is buffered, and
    only if stdout takes it within STDOUT_WAIT_S (a reader that stopped reading does not hold the end)."""
    result: dict[str, Any] = {"type": "result", "subtype": subtype, "is_error": True, "error": said,
                              "signal": name, "result": None, "cut_off": _state.cut_off,
                              "session_id": _state.session_id,
                              "duration_ms": int((time.monotonic() - _state.started) * 1000)}
    result |= nothing_spent()  # until print mode reports its run (`reporting`): no request made yet
    if _state.fields is not None:
        with contextlib.suppress(Exception):  # what print mode knows is extra: the object goes without it
            result |= _state.fields()
    # redacted as print mode's own result lines are (os.write passes the redacting sys.stdout by)
    data = (json_visible(secrets.redact(json.dumps(result, ensure_ascii=False, default=str))) + "\n").encode()
    with contextlib.suppress(OSError, ValueError):
        if select.select([], [1], [], STDOUT_WAIT_S)[1]:
            os.write(1, data)
