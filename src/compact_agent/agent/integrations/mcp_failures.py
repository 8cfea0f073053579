"""Why an MCP server did not start, in words that say what to check (mcp_servers.py starts them).

The MCP client's own words said neither: 'Client failed to connect: Failed to initialize server
session' for a server that did not answer in time, 'All connection attempts failed' for an address
where nothing listens, 'Connection closed' for a program that ended without answering.
"""

from __future__ import annotations

import contextvars
import logging
import os
import re
from pathlib import Path
from typing import Protocol

from ... import secrets


class Server(Protocol):
    """What the words need of a server's entry (mcp_servers.McpServerConfig)."""

    @property
    def name(self) -> str: ...
    @property
    def command(self) -> str | None: ...
    @property
    def cwd(self) -> str | None: ...
    @property
    def env(self) -> tuple[tuple[str, str], ...]: ...
    @property
    def url(self) -> str | None: ...
    @property
    def timeout_s(self) -> float: ...


def missing_program(cfg: Server, cwd: Path) -> str | None:
    """Why a server's `command` cannot be run (no such program on PATH, or no such file), in
    words; None when it can be found."""
    import shutil

    if not cfg.command:
        return None
    base = (cwd / cfg.cwd).resolve() if cfg.cwd else cwd
    path = Path(cfg.command)
    if os.sep in cfg.command:
        where = path if path.is_absolute() else base / path
        return None if os.access(where, os.X_OK) and where.is_file() else (
            f"no program {cfg.command} (check its command in [mcp_servers.{cfg.name}])")
    if shutil.which(cfg.command, path=dict(cfg.env).get("PATH")) is None:
        return f"no program named {cfg.command} on PATH (check its command in [mcp_servers.{cfg.name}])"
    return None


_ERRNO = re.compile(r"\[Errno -?\d+\]\s*")


#: The JSON-RPC error codes of the MCP client's own failures: the server's stream ended (MCP's), and
#: the standard 'method not found', which the client says for an HTTP 404 before any session.
CONNECTION_CLOSED, METHOD_NOT_FOUND = -32000, -32601


def why_failed(e: BaseException, cfg: Server) -> str:
    """Why a server did not start, in words that say what to check. The client's own said neither:
    'Client failed to connect: Failed to initialize server session' for a server that did not
    answer in time, 'Client failed to connect: All connection attempts failed' for an address where
    nothing listens, 'Connection closed' for a program that ended without answering."""
    from ...error_causes import chain
    from ...error_text import connection_reason

    causes = chain(e)
    causes += [x for c in causes if isinstance(c, BaseExceptionGroup) for x in chain(c.exceptions[0])]
    where = f"[mcp_servers.{cfg.name}]"
    if any(isinstance(c, TimeoutError) for c in causes):
        return f"it did not answer within {cfg.timeout_s:g}s (its timeout in {where})"
    if cfg.url:
        url = secrets.shown_url(cfg.url)
        if any(isinstance(c, OSError) for c in causes):  # refused, a host name that does not resolve, …
            return f"cannot reach {url} ({connection_reason(e)[0]}; check its url in {where})"
        if any(getattr(c, "code", None) == METHOD_NOT_FOUND and str(c) == "Not Found" for c in causes):
            return f"{url} answered 404 Not Found: no MCP server there (check its url in {where})"
    if cfg.command and any(getattr(c, "code", None) == CONNECTION_CLOSED for c in causes):
        return (f"its program ended, or closed its output, without answering as an MCP server (check its "
                f"command in {where}; run it to see what it says)")
    return _one_line(e)


def _one_line(e: BaseException) -> str:
    """A server's failure as one line of words: no `[Errno 2]`, no exception name where there is text."""
    text = _ERRNO.sub("", " ".join(str(e).split())) or type(e).__name__
    if isinstance(e, TimeoutError):
        text = "timed out"
    if isinstance(e, BaseExceptionGroup) and e.exceptions:  # from the client's task group
        return _one_line(e.exceptions[0])
    return text[:300]


#: The server whose connection the running task serves: set as a server starts (mcp_servers.py), so
#: the tasks its client makes to read its output carry it, and a warning they log can name it.
SERVER: contextvars.ContextVar[str | None] = contextvars.ContextVar("mcp_server", default=None)
_NOT_JSON_RPC = "Failed to parse JSONRPC message from server"


class _Named(logging.Filter):
    """The stdio client's warnings name the server they are about ('Failed to parse JSONRPC message
    from server' named none, and said nothing of what to do)."""

    def filter(self, record: logging.LogRecord) -> bool:
        name = SERVER.get()
        if name is None:
            return True
        if record.msg == _NOT_JSON_RPC:
            record.msg = (f"MCP server {name} printed a line on its output that is not an MCP message; it was "
                          "left out (a server's own logs belong on its stderr)")
        else:
            record.msg = f"MCP server {name}: {record.getMessage()}"
        record.args = None
        return True


def name_the_server_in_warnings() -> None:
    """Once: the MCP stdio client's warnings name their server (`SERVER`)."""
    logger = logging.getLogger("mcp.client.stdio")
    if not any(isinstance(f, _Named) for f in logger.filters):
        logger.addFilter(_Named())
