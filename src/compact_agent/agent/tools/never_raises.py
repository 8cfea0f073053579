"""A tool's function as the model's toolset takes it: one that never raises (toolset.py wraps each
built-in tool with `never_raises`).

A failure reaches the model as its result, one line with the reason it can act on (`failure_line`:
no exception's class name, no temp file's name, a link put in the way said as refused), and is marked
in the result's metadata for the layers and the UI: `error`, and `ran: false` for a call refused
before it ran (`NotRun`), `finished: false` for one killed (`Killed`), the user's words of a refusal
(`declined_mark`). grep's and glob's results carry how many matches or files they list (`found`),
which a digest of the round says.
"""

from __future__ import annotations

import errno
import functools
import logging
import re
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any, ParamSpec

from pydantic_ai.messages import ToolReturn

from ...context.plumbing.markers import mark
from ..safety.checked_open import Swapped
from ..safety.permissions import UNFOLLOWABLE, copied_instead
from .base import Killed, NotRun, ToolFailure, declined_mark, tool_text

log = logging.getLogger(__name__)
P = ParamSpec("P")


def failure_line(tool: str, e: BaseException) -> ToolFailure:
    """The reason, without the exception's class name or a temp file's name."""
    if isinstance(e, Swapped):  # a link put in the way of a checked path: refused, the path in full
        return ToolFailure(f"{tool} refused: {e.filename} {e.strerror}"[:500])
    if isinstance(e, OSError) and e.errno == errno.ELOOP:  # a link that loops: the path as the model gave it
        return ToolFailure(f"{tool} failed: {e.filename or 'path'}: {UNFOLLOWABLE}"[:500])
    if isinstance(e, OSError) and e.strerror:
        name = Path(e.filename).name if e.filename else ""
        reason = f"{e.strerror}" + (f": {name}" if name and not name.endswith(".tmp") else "")
    else:
        reason = " ".join(str(e).split()) or "unexpected error"
    return ToolFailure(f"{tool} failed: {reason}"[:500])


Result = str | list[Any]  # text, or text and an image (read_file of an image: images.py)
_HIT = re.compile(r"^.+?:\d+:", re.M)  # a line of grep's: `path:line:text`
_NOTE = re.compile(r"^(\[.*\]|\d[\d,]* entr(y|ies) hidden by deny_paths)$")  # search_notes.py's lines
_CUT = re.compile(r"^\[(stopped at |grep |glob |\d+ of \d+ files shown)", re.M)  # it found more than it lists


def found(tool: str, text: str) -> int | None:
    """How many matches grep's result `text` lists, or files glob's does (`["tool"]["matches"]`, which a
    digest says: "No matches for 'TODO' in ." was `ok (1 line)`, a match to a model reading it); None
    where it does not say (a search stopped, or one that lists only some of what it found)."""
    if _CUT.search(text):
        return None
    lines = text.splitlines()
    n = len(_HIT.findall(text)) if tool == "grep" else sum(1 for x in lines if not _NOTE.match(x))
    none = bool(lines) and lines[0].startswith("No matches for " if tool == "grep" else "No files match ")
    return (0 if none else None) if n == 0 or none else n


def never_raises(fn: Callable[P, Awaitable[Result]], said: set[str] | None = None
                 ) -> Callable[P, Awaitable[Result | ToolReturn]]:
    """`fn` as a tool that never raises, its text passed through `tool_text`; with `said` (the
    refusals that carry the user's words, Permissions.said_instead), a copy of their marker in
    anything else it returns is marked as one (`copied_instead`)."""
    def text(x: str) -> str:
        return tool_text(x if said is None else copied_instead(x, said))

    @functools.wraps(fn)
    async def wrapper(*args: P.args, **kwargs: P.kwargs) -> Result | ToolReturn:
        try:
            result = await fn(*args, **kwargs)
        except Exception as e:  # the model gets a reason it can act on, never a traceback
            log.debug("tool %s failed", fn.__name__, exc_info=True)
            result = failure_line(fn.__name__, e)
        if isinstance(result, ToolFailure):
            info: dict[str, object] = {"error": True, "ran": False} if isinstance(result, NotRun) else \
                {"error": True, "finished": False} if isinstance(result, Killed) else {"error": True}
            info |= {k: tool_text(v) if isinstance(v, str) else v for k, v in declined_mark(str(result), said).items()}
            return ToolReturn(return_value=text(str(result)), metadata=mark(None, "tool", info))
        if isinstance(result, list):
            return [text(x) if isinstance(x, str) else x for x in result]
        if fn.__name__ in ("grep", "glob") and (n := found(fn.__name__, result)) is not None:
            return ToolReturn(return_value=text(result), metadata=mark(None, "tool", {"matches": n}))
        return text(result)

    return wrapper
