"""Pieces of the one-line error texts that need to look below an exception's surface: the
transport error an SDK wrapped, the `retry-after` a provider asked for, and Python warnings from
libraries (pydantic's span lines and name classes; ours are one line, no file, no class name)."""

from __future__ import annotations

import logging
import re
from typing import Any


def _chain(e: BaseException) -> list[BaseException]:
    """`e` and the errors under it (imported late: --version and --help load no agent code)."""
    from .agent.run.retry import _chain as chain

    return list(chain(e))


def retry_after(e: BaseException) -> float | None:
    """Seconds the provider's `retry-after` header asked for (on the SDK error under `e`), if any."""
    for cause in _chain(e):
        headers = getattr(getattr(cause, "response", None), "headers", None)
        if headers is not None and headers.get("retry-after"):
            try:
                return float(headers["retry-after"])
            except ValueError:
                return None
    return None


def caused_by(e: BaseException, kind: type[BaseException]) -> bool:
    """`e` or an error under it (the SDKs wrap transport errors) is a `kind`."""
    return any(isinstance(c, kind) for c in _chain(e))


def warning_line(message: Warning | str, category: type[Warning], filename: str, lineno: int,
                 file: Any = None, line: str | None = None) -> None:
    """A Python warning from a library as one line of ours: no file, line or class name."""
    text = str(message)
    if "usage" in text.lower() or "serializ" in text.lower():  # pydantic / pydantic-ai on odd usage fields
        text = "the provider reported token usage that is not a count (negative or not a number); costs may be off"
    else:
        text = re.sub(r"^\w+(Error|Warning|Exception)?: ", "", text.strip().splitlines()[0] if text.strip() else "")
    logging.getLogger("compact_agent.warnings").warning("%s", text)
