"""Library warnings as the user's lines: what our modules, the MCP client and Python's warnings
machinery log reaches stderr as `compact-agent: warning: ...`, once each, on one line, the key
never in it — not as Python's bare last-resort output, which repeats and may span lines."""

from __future__ import annotations

import logging
import sys


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

    from .error_text import warning_line

    warnings.showwarning = warning_line
    for name in ("compact_agent", "mcp"):
        lib = logging.getLogger(name)
        lib.addHandler(handler)
        lib.setLevel(logging.WARNING)
        lib.propagate = False
