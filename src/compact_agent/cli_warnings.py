"""Library warnings as the user's lines: what our modules, the MCP client and Python's warnings
machinery log reaches stderr as `compact-agent: warning: ...`, once each, on one line, the key
never in it — not as Python's bare last-resort output, which repeats and may span lines. And the
working directory a command starts in (`working_dir`): a current directory deleted or moved away
under the shell is said in one line, not as a traceback."""

from __future__ import annotations

import logging
import sys
from pathlib import Path


class _OneLineOnce(logging.Filter):
    """Each distinct library warning once, flattened to one line."""

    def __init__(self) -> None:
        super().__init__()
        self.seen: set[str] = set()

    def filter(self, record: logging.LogRecord) -> bool:
        from . import secrets

        text = secrets.redact(" ".join(record.getMessage().split()))[:300]
        if text in self.seen:
            return False
        self.seen.add(text)
        record.msg, record.args = text, None
        record.exc_info, record.exc_text, record.stack_info = None, None, None  # a line, never a traceback
        return True


def route_library_warnings() -> None:
    """Warnings our modules log (a corrupt collapse log, a spill that could not be written) reach
    the user as `compact-agent: warning: ...` lines, once each, not as Python's bare last-resort
    output (which repeats and may span lines). So do the MCP client's (a server that prints
    non-JSON: one line, not a traceback) and Python warnings (pydantic's multi-line ones about a
    provider's odd usage fields)."""
    logger = logging.getLogger("compact_agent")
    if any(getattr(h, "_compact_agent", False) for h in logger.handlers):
        return
    handler = logging.StreamHandler(sys.stderr)
    handler.setFormatter(logging.Formatter("compact-agent: warning: %(message)s"))
    handler.addFilter(_OneLineOnce())
    handler._compact_agent = True  # type: ignore[attr-defined]
    import warnings

    from .warning_lines import warning_line

    warnings.showwarning = warning_line
    for name in ("compact_agent", "mcp"):
        lib = logging.getLogger(name)
        lib.addHandler(handler)
        lib.setLevel(logging.WARNING)
        lib.propagate = False


GONE = "the current directory no longer exists (deleted or moved); cd into the project again, or name it: --cwd DIR"


def working_dir(given: Path | None) -> Path:
    """The directory a command works in, resolved: `--cwd`'s, else the current one. A current
    directory deleted or moved away under the shell (the system then has no name for it) ends the
    command with one line and exit 2, as a `--cwd` that does not exist; `--cwd` naming an absolute
    folder still works from there."""
    from .cli_help import fail

    try:
        return (given or Path.cwd()).resolve()
    except FileNotFoundError:  # os.getcwd(): also for a relative --cwd, read from the current directory
        if given is not None:
            raise fail(f"--cwd {given} is relative to the current directory, which no longer exists (deleted or "
                       "moved); give the folder's full path", 2) from None
        raise fail(GONE, 2) from None
