"""Output to a reader that leaves early: `compact-agent -p ... | head -1`.

When the reader of stdout (or stderr) closes the pipe, the next write fails with BrokenPipeError;
printed as an error it read `compact-agent: Broken pipe` and the run exited 1. `guarded_output`
wraps both streams: such a write raises `ReaderGone` (a BaseException, so the "report it as a
failure" handlers of print mode and `analyze` let it pass, as they do Ctrl-C), the streams are
pointed at /dev/null so nothing fails again, and the program ends quietly with
`EXIT_READER_GONE`. A long text is written in pieces a pipe takes whole or refuses, so a reader
that leaves in the middle is seen. Output that cannot be written for another reason (a full disk)
is one line on stderr and exit 1 (`OutputFailed`); a stdout or stderr closed from the start
discards what goes there, on /dev/null (`_fill_closed`).
"""

from __future__ import annotations

import contextlib
import os
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

#: The exit status when the reader of stdout closed it early (`compact-agent -p ... | head -1`):
#: 128 + SIGPIPE, what a shell reports for cat, grep or git log ended the same way. A script under
#: `set -o pipefail` so learns the output was not all read; without it a pipeline's status is the
#: reader's, and nothing changes. Not 0: a turn the reader cut short did not finish.
EXIT_READER_GONE = 141


class ReaderGone(BaseException):
    """The reader of stdout (or stderr) closed it before the output ended.

    Not an Exception: print mode and `analyze` report every Exception as a failure in one line,
    and a reader that has read what it wanted is no failure. Like Ctrl-C it passes those handlers,
    and a turn it stops ends as an interrupted one does: what was saved stays the session, and the
    reply streamed so far is kept, marked as cut."""


def reader_left(e: BaseException) -> bool:
    """Whether `e` is the reader of our output gone (ReaderGone), also inside a group: print mode
    marks the turn it cut short as stopped, as Ctrl-C's (ui/print_mode.py)."""
    if isinstance(e, ReaderGone):
        return True
    return isinstance(e, BaseExceptionGroup) and any(reader_left(x) for x in e.exceptions)


#: Characters written at once at most: 4 bytes each at most in UTF-8, a pipe takes 4,096 (PIPE_BUF)
#: in one piece or not at all.
ATOMIC_CHARS = 1_024


class OutputFailed(BaseException):
    """The output could not be written for a reason other than its reader leaving (a full disk):
    one line on stderr, exit 1. A BaseException for the reason ReaderGone is one."""


class Reader:
    """Whether a reader of our output has gone (shared by stdout and stderr: `2>&1 | head`)."""

    gone = False


class GuardedStream:
    """sys.stdout or sys.stderr, raising ReaderGone where a write or flush meets a closed pipe. The
    stream (and the other one, when it is the same pipe) is then pointed at /dev/null, so what is
    written later, and what is still buffered, goes nowhere instead of failing again."""

    def __init__(self, stream: Any, reader: Reader) -> None:
        self.stream = stream
        self.reader = reader

    def write(self, text: str) -> int:
        try:
            if len(text) <= ATOMIC_CHARS:
                return int(self.stream.write(text))
            # A long text goes in pieces the pipe takes whole or refuses: one write larger than the
            # pipe's buffer, cut short by a reader that left, returns what fit, and the rest was
            # dropped without an error (a 210 KB answer `| head -1` exited 0).
            for start in range(0, len(text), ATOMIC_CHARS):
                self.stream.write(text[start:start + ATOMIC_CHARS])
                self.stream.flush()
            return len(text)
        except BrokenPipeError:
            raise self._closed() from None
        except OSError as e:  # a full disk (`> /dev/full`): one line, not a traceback
            raise self._failed(e) from None

    def writelines(self, lines: Any) -> None:
        for line in lines:
            self.write(line)

    def flush(self) -> None:
        try:
            self.stream.flush()
        except BrokenPipeError:
            raise self._closed() from None
        except OSError as e:
            raise self._failed(e) from None

    def _failed(self, error: OSError) -> OutputFailed:
        """The output cannot be written (a full disk): what is still buffered goes nowhere, so it
        does not fail again at exit; the one line that says so goes to stderr."""
        if (fd := self._fileno()) is not None:
            self._to_null([fd])
        return OutputFailed(error.strerror or str(error))

    def _fileno(self) -> int | None:
        """The file under the stream; None for one without (a test's capture)."""
        try:
            return int(self.stream.fileno())
        except (AttributeError, OSError, ValueError):
            return None

    @staticmethod
    def _to_null(fds: list[int]) -> None:
        null = os.open(os.devnull, os.O_WRONLY)
        for f in fds:
            with contextlib.suppress(OSError):
                os.dup2(null, f)
        os.close(null)

    def _closed(self) -> ReaderGone:
        self.reader.gone = True
        if (fd := self._fileno()) is None:
            return ReaderGone()
        other = 2 if fd == 1 else 1
        try:
            fds = [fd, other] if os.path.sameopenfile(fd, other) else [fd]
        except OSError:  # the other one is closed
            fds = [fd]
        self._to_null(fds)
        return ReaderGone()

    def __getattr__(self, name: str) -> Any:  # isatty, encoding, fileno, buffer: the stream's own
        return getattr(self.stream, name)


def _fill_closed() -> None:
    """Open /dev/null on each standard descriptor the program was started without (`<&-`, `2>&-`).
    Left closed, the first file it kept open took that number (with `2>&-`, the session's lock file),
    and what a child process or the interpreter wrote to that stream went into the file; and a note
    written to the stderr Python then has (None) ended the run with exit 1 and no answer."""
    for fd in (0, 1, 2):
        try:
            os.fstat(fd)
        except OSError:
            null = os.open(os.devnull, os.O_RDWR)
            if null != fd:
                os.dup2(null, fd)
                os.close(null)


@contextmanager
def guarded_output() -> Iterator[None]:
    """Run the program with stdout and stderr guarded; a reader gone ends it with EXIT_READER_GONE
    and nothing on stderr, whatever else was under way (also an error after it, or a group)."""
    reader = Reader()
    _fill_closed()
    if sys.stdout is None:  # started with stdout closed (`>&-`): what it prints goes nowhere
        sys.stdout = open(os.devnull, "w", encoding="utf-8")  # noqa: SIM115 - for the program's life
    if sys.stderr is None:  # with stderr closed (`2>&-`): what it says too, and the run goes on
        sys.stderr = open(os.devnull, "w", encoding="utf-8")  # noqa: SIM115 - for the program's life
    out, err = GuardedStream(sys.stdout, reader), GuardedStream(sys.stderr, reader)
    sys.stdout, sys.stderr = out, err  # streams in all but their type (every other attribute is theirs)
    try:
        try:
            yield
        finally:
            out.flush()  # what is still buffered meets a closed pipe here, not in Python's exit
    except BaseException as e:  # noqa: BLE001 - ReaderGone, also inside a group or after a handler's exit
        # The reader left: end quietly. Also where a write went to the file itself, not through
        # these streams (the REPL's prompt_toolkit), and met the closed pipe.
        if isinstance(e, BrokenPipeError | ReaderGone) and not reader.gone:
            out._closed()  # what stdout still buffers must not fail again at exit
        if reader.gone:
            sys.exit(EXIT_READER_GONE)
        if isinstance(e, OutputFailed):
            with contextlib.suppress(OSError):
                err.stream.write(f"compact-agent: cannot write the output: {e}\n")
            sys.exit(1)
        raise
    finally:
        sys.stdout, sys.stderr = out.stream, err.stream
