"""A SIGTERM or SIGHUP that comes as a finished run exits is ignored: the run ends with its own status.
Python puts the default action back in place of the handler as it tears itself down (its modules,
a while with pydantic-ai loaded), and such a signal ended a `-p` run that had printed its whole answer
with 143 or 129 and no line. Before that point (an exit callback registered later than the handler,
one that may hang) the signal still ends the run as always.

A fresh interpreter that imports stop_signals alone: a forked run exits without tearing down."""

from __future__ import annotations

import signal
import subprocess
import sys

from tests.e2e.conftest import REPO

SCRIPT = """
import atexit, functools, os, signal, sys
from compact_agent import stop_signals

stop_signals.say_when_terminated()
signalled = functools.partial(os.kill, os.getpid(), signal.SIG{name})  # looks up no global when called

class TornDown:
    def __del__(self, when=sys.argv[1], signalled=signalled):  # as the interpreter tears its modules down
        if when == "teardown":
            signalled()

torn_down = TornDown()
if sys.argv[1] == "exit callback":  # one registered after the handler, run before it is ignored
    atexit.register(signalled)
print("the whole answer", flush=True)
sys.exit(3)
"""


def run(name: str, when: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-c", SCRIPT.replace("{name}", name), when], capture_output=True,
                          text=True, timeout=60, cwd=REPO)


def test_a_signal_as_the_interpreter_tears_down_is_ignored() -> None:
    for name in ("TERM", "HUP"):
        done = run(name, "teardown")
        assert (done.returncode, done.stdout, done.stderr) == (3, "the whole answer\n", ""), name


HANG = """
import atexit, sys, time
from compact_agent import stop_signals

atexit.register(time.sleep, 60)  # registered before the handler: runs once SIGTERM and SIGHUP are ignored
stop_signals.EXIT_WATCHDOG_S = 0.5
stop_signals.say_when_terminated()
print("the whole answer", flush=True)
sys.exit(3)
"""


def test_an_exit_that_hangs_once_the_signals_are_ignored_is_still_ended() -> None:
    """A teardown that does not end (here an exit callback run after the signals are ignored, as a
    thread joined at exit that never ends) can no longer be stopped by SIGTERM: the watchdog ends it."""
    done = subprocess.run([sys.executable, "-c", HANG], capture_output=True, text=True, timeout=30, cwd=REPO)
    assert (done.returncode, done.stdout) == (-signal.SIGALRM, "the whole answer\n"), done


def test_a_signal_during_an_exit_callback_still_ends_the_run() -> None:
    done = run("TERM", "exit callback")
    assert done.returncode == -signal.SIGTERM
    assert (done.stdout, done.stderr) == ("the whole answer\n", "compact-agent: terminated (SIGTERM)\n")
