"""MCP servers from the config file, through pydantic-ai's `MCPToolset` (stdio and HTTP).

    [mcp_servers.docs]                       # stdio: a command
    command = "python"
    args = ["docs_server.py"]
    env = { DOCS_ROOT = "docs" }
    [mcp_servers.search]                     # HTTP (streamable HTTP or SSE, from the URL)
    url = "http://localhost:8000/mcp"
    headers = { Authorization = "Bearer ${SEARCH_TOKEN}" }
    compactable = false                      # keep this server's results out of microcompact
    allow_tools = ["search"]                 # its tools that run unasked (mcp_calls.py); `*`: all

Servers are connected once per session (a stdio server keeps its state, its start-up paid once) and
one that fails to start is reported in one line and left out. Tools are exposed as `<server>_<tool>`.

The servers' instructions (and their tool names) are *declared in the conversation*, not in the
system prompt: a server that connects or changes later then appends a small delta instead of
rewriting the cached prompt prefix (seed 001's MCP-instructions delta). A compaction rewrites the
history, so the current declaration of every server is restored after it, like the plan. What a
declaration says is mcp_declaration.py's; the names its tools are offered under, worked out again
whenever its list changes, mcp_names.py's.
"""

from __future__ import annotations

import asyncio
import contextlib
import contextvars
import os
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pydantic_ai.toolsets import CombinedToolset

from ...addresses import address_problem
from ...config import Settings
from ...setting_names import closest, meant
from ...setting_values import shown
from ...words import plural
from ..safety.permissions import Permissions
from ..tools.shell_groups import running
from .fenced import kept_start
from .mcp_calls import RULE_KEYS, ServerTools, group_leaders, rule_problem, unmatched_rules
from .mcp_declaration import AGAIN, AVAILABLE, CONNECTED, declared, fingerprint, text
from .mcp_declaration import MCP_HEAD as MCP_HEAD  # the head /context finds a declaration by
from .mcp_failures import SERVER, missing_program, name_the_server_in_warnings, why_failed
from .mcp_names import BUILT_IN, offer
from .mcp_results import Media

_NAME = re.compile(r"^[A-Za-z0-9_-]{1,40}$")
#: The keys a server takes, as the docs list them; `type` is Claude Code's (`.mcp.json`'s `mcpServers`), taken and
#: not needed. Any other key is a mistake to say (`timout = 5` was ignored without a word, the default kept).
KEYS = ("command", "args", "env", "cwd", "url", "headers", "compactable", "instructions", "timeout", "tool_timeout",
        *RULE_KEYS)
_TOLERATED = ("type",)
_ENV = re.compile(r"\$\{([A-Za-z_][A-Za-z0-9_]*)(?::-([^}]*))?\}")


class McpConfigError(ValueError):
    """The [mcp_servers] table has an entry we cannot start; the message is one line. `problems`:
    each bad key of the entry (`mcp_servers.docs.args`) with why, all of them, not the first only."""

    def __init__(self, message: str, problems: list[tuple[str, str]] | None = None) -> None:
        super().__init__(message)
        self.problems = problems or []


@dataclass(frozen=True)
class McpServerConfig:
    name: str
    command: str | None = None
    args: tuple[str, ...] = ()
    env: tuple[tuple[str, str], ...] = ()
    cwd: str | None = None
    url: str | None = None
    headers: tuple[tuple[str, str], ...] = ()
    compactable: bool = True  # old results may be cleared by microcompact like read_file's
    instructions: bool = True  # declare the server's instructions to the model
    timeout_s: float = 30.0  # connection and initialisation
    tool_timeout_s: float = 300.0  # one tool call (mcp_calls.py)
    allow_tools: tuple[str, ...] = ()  # its tools (own names, globs) that run unasked (mcp_calls.py)
    deny_tools: tuple[str, ...] = ()  # and those that never run


def _expand(value: str) -> str:
    """`${VAR}` / `${VAR:-default}` from the environment, so tokens stay out of config files."""
    def sub(m: re.Match[str]) -> str:
        if m.group(1) in os.environ:
            return os.environ[m.group(1)]
        if m.group(2) is not None:
            return m.group(2)
        raise McpConfigError(f"environment variable {m.group(1)} is not set")  # _problems said it first
    return _ENV.sub(sub, value)


def _unset(value: Any) -> str | None:
    """Why `value` cannot be expanded (`uses ${MY_TOKEN}, which is not set …`), or None: the
    variables it names that are not set and have no `:-default`."""
    if not isinstance(value, str):
        return None
    names = list(dict.fromkeys(m.group(1) for m in _ENV.finditer(value)
                               if m.group(1) not in os.environ and m.group(2) is None))
    if not names:
        return None
    used = " and ".join(f"${{{n}}}" for n in names)
    return (f"uses {used}, which {'is' if len(names) == 1 else 'are'} not set "
            f"(set {'it' if len(names) == 1 else 'them'}, or write ${{{names[0]}:-default}})")


def parse_servers(table: dict[str, Any] | None) -> list[McpServerConfig]:
    """The servers of the [mcp_servers] table; a server that could never start is a McpConfigError
    naming every bad key of it in one line (`mcp_servers.docs.command: …; mcp_servers.docs.args: …`):
    the first alone was said, and the next once it was fixed."""
    out = []
    for name, spec in (table or {}).items():
        if problems := _problems(name, spec):
            raise McpConfigError("; ".join(f"{key}: {why}" for key, why in problems), problems)
        try:
            out.append(McpServerConfig(
                name=name, command=spec.get("command"),
                args=tuple(str(a) for a in spec.get("args") or ()),
                env=tuple((str(k), _expand(str(v))) for k, v in (spec.get("env") or {}).items()),
                cwd=spec.get("cwd"), url=_expand(spec["url"]) if spec.get("url") else None,
                headers=tuple((str(k), _expand(str(v))) for k, v in (spec.get("headers") or {}).items()),
                compactable=bool(spec.get("compactable", True)),
                instructions=bool(spec.get("instructions", True)),
                timeout_s=float(spec.get("timeout", 30.0)),
                tool_timeout_s=float(spec.get("tool_timeout", 300.0)),
                allow_tools=tuple(spec.get("allow_tools") or ()), deny_tools=tuple(spec.get("deny_tools") or ()),
            ))
        except (TypeError, AttributeError, ValueError) as e:
            raise McpConfigError(f"mcp_servers.{name}: {e}", [(f"mcp_servers.{name}", str(e))]) from None
    return out


def _problems(name: str, spec: Any) -> list[tuple[str, str]]:
    """Every bad key of server `name` (the key as a file writes it, and why), in the table's order."""
    at = f"mcp_servers.{name}"
    found: list[tuple[str, str]] = []
    if not _NAME.match(name):
        found.append((at, "a server name is letters, digits, _ and - (it prefixes tool names)"))
    if not isinstance(spec, dict):  # under [mcp_servers], a setting's name that is not quite one
        setting = closest(name, [k for k in Settings.model_fields if k not in ("hooks", "mcp_servers")])
        return [*found, (at, f"expected a table (a server; did you mean the setting {setting}?)" if setting
                         else "expected a table")]
    if bool(spec.get("command")) == bool(spec.get("url")):
        found.append((at, "give either command (stdio) or url (HTTP)"))
    for key in ("command", "url", "cwd"):  # a number there could never start a server
        if spec.get(key) is not None and not isinstance(spec[key], str):
            found.append((f"{at}.{key}", f"expected a string, not {shown(spec[key])}"))
    url = spec.get("url")  # an address no client reaches is said now (the library's words quoted its password)
    if why := _unset(url) or (isinstance(url, str) and url and address_problem(_expand(url), "http://localhost:8000/mcp")):
        found.append((f"{at}.url", why))
    args = spec.get("args")
    if args is not None and not isinstance(args, list):
        found.append((f"{at}.args", f"expected a list of strings, not {shown(args)}"))
    elif args:  # a number is text to a server (`--port 8000`); a table or true would reach it as Python's
        wrong = [n for n, arg in enumerate(args, 1) if not _text_like(arg)]
        if wrong:
            found.append((f"{at}.args", f"expected a list of strings, and item {wrong[0]} is {shown(args[wrong[0] - 1])}"))
    for key in ("env", "headers"):
        table = spec.get(key)
        if table is not None and not isinstance(table, dict):
            found.append((f"{at}.{key}", f"expected a table, not {shown(table)}"))
        elif table:
            found += [(f"{at}.{key}.{k}", f"expected a string, not {shown(v)}") for k, v in table.items()
                      if not _text_like(v)]
            found += [(f"{at}.{key}.{k}", why) for k, v in table.items() if (why := _unset(v)) is not None]
    for key, most in (("timeout", 3_600), ("tool_timeout", 86_400)):
        timeout = spec.get(key, 30.0)
        if isinstance(timeout, bool) or not isinstance(timeout, int | float) or not 0 < timeout <= most:
            found.append((f"{at}.{key}", f"expected seconds, more than 0 and at most {most:,}, not {shown(timeout)}"))
    for key in ("compactable", "instructions"):
        if key in spec and not isinstance(spec[key], bool):  # bool("no") is true
            found.append((f"{at}.{key}", f"expected true or false, not {shown(spec[key])}"))
    found += [(f"{at}.{key}", why) for key in RULE_KEYS if key in spec and (why := rule_problem(spec[key]))]
    for key in spec:
        if key not in KEYS and key not in _TOLERATED:
            found.append((f"{at}.{key}", "unknown key" + (meant(str(key), KEYS)
                                                          or f" (a server takes {', '.join(KEYS)})")))
    return found


def _text_like(value: Any) -> bool:
    """Text, or a number a server gets as its text (`8000`); not a table, a list nor true."""
    return isinstance(value, str | int | float) and not isinstance(value, bool)


@dataclass
class ServerState:
    config: McpServerConfig
    toolset: Any  # the MCPToolset (entered while connected)
    tools: list[str] = field(default_factory=list)  # prefixed names, as the model sees them
    instructions: str = ""
    basis: tuple[list[str], frozenset[str]] | None = None  # its list (`<server>_<tool>`), and the names taken
    offered: dict[str, str] = field(default_factory=dict)  # of those, each offered: the name it is offered as
    said: set[str] = field(default_factory=set)  # the lines said of its tools left out or renamed


class McpServers:
    """Connected servers of one session, the toolset the agent sees, and what the model was told."""

    def __init__(self, configs: list[McpServerConfig], cwd: Path,
                 report: Callable[[str, str, dict[str, Any]], None] | None = None) -> None:
        self.configs = configs
        self.cwd = cwd
        self.report = report or (lambda action, line, detail: None)
        self.live: dict[str, ServerState] = {}
        self.failed: dict[str, str] = {}
        self.toolset: CombinedToolset[Any] = CombinedToolset([])  # filled with the connected servers
        self.announced: dict[str, str] = {}  # server -> fingerprint the conversation carries
        self.resumed: list[Any] | None = None  # a resumed conversation, until its declarations are read
        self._pending: dict[str, str] | None = None
        self.connected = False
        self.listed = False  # a /mcp lists each server's state: a failure needs no line of its own
        #: what a result's files may be for the model of the moment (mcp_results.py); the session sets it
        self.media: Callable[[], Media] = Media
        #: who may allow a call of their tools (mcp_calls.py); the session sets it: none, none runs
        self.permissions: Callable[[], Permissions | None] = lambda: None
        #: whether the servers' tools wait behind tool_search (tool_search.py); the session sets it
        self.searched: Callable[[], bool] = lambda: False
        self.stopped: dict[str, str] = {}  # server -> what its tools' calls say: its program ended
        self.unmatched: list[str] = []  # the rules that name no tool there is, said once they connected
        self._ended: list[ServerState] = []  # closed with the others
        #: the servers' programs, killed with the agent however it ends (shell_groups.py): each is the
        #: leader of its own group (MCP's stdio client starts it so), which a SIGTERM or SIGHUP to the
        #: agent never reached; one busy in a call went on with parent PID 1
        self._groups = contextlib.ExitStack()
        self._pids: set[int] = set()
        self._abandoned: set[asyncio.Future[Any]] = set()  # starts given up at their timeout, still undoing

    def tool_timeout(self, name: str) -> float:
        state = self.live.get(name)
        return state.config.tool_timeout_s if state is not None else 300.0

    def ended(self, name: str, tool: str) -> str:
        """Server `name`'s program was found gone by a call of `tool`: no longer connected (in /mcp
        too), said once in a line; what that call, and every later one of its tools, fails with."""
        if name not in self.stopped:
            why = f"its program ended, or closed its output, during a call of {tool}"
            self.stopped[name] = (f"MCP server {name} has stopped ({why}); its tools cannot be called "
                                  "until the agent is started again")
            if (state := self.live.pop(name, None)) is not None:
                self._ended.append(state)
            self.failed[name] = f"stopped: {why}"
            self.report("failed", self.stopped[name], {"server": name})
        return self.stopped[name]

    async def connect(self) -> None:
        """Connect every configured server once, all at once: each one's result is reported as soon
        as it is known (a broken server's line waited for a slow one configured before it), and the
        servers are kept in the configured order whatever order they answered in (their tools and
        declarations are part of the cached prompt prefix). Failures are reported and skipped."""
        if self.connected:
            return
        self.connected = True
        await asyncio.gather(*(self._connect_one(cfg) for cfg in self.configs))
        order = [cfg.name for cfg in self.configs]
        self.live = {name: self.live[name] for name in order if name in self.live}  # the toolsets' order
        for name, state in self.live.items():  # each one's names said as it connects, in this order
            self.offered(name, state.tools)
        allowed = list(p.allowed_tools) if (p := self.permissions()) is not None else []
        states = [(c, self.live.get(c.name)) for c in self.configs]  # the names each listed, and is offered by
        self.unmatched = unmatched_rules(allowed, [(c, (s.basis[0] if s.basis else s.tools) if s else None,
                                                    s.tools if s else []) for c, s in states])
        for line in self.unmatched:  # a rule that names no tool there is (mcp_calls.py); /mcp lists them too
            self.report("failed", line, {"rule": True})
        self.toolset.toolsets = [ServerTools(s.toolset.prefixed(name), self, name, s) for name, s in self.live.items()]

    async def _connect_one(self, cfg: McpServerConfig) -> None:
        try:
            if (missing := missing_program(cfg, self.cwd)) is not None:
                raise FileNotFoundError(missing)
            state = await self._start(cfg)
        except Exception as e:  # noqa: BLE001 - any failure of a user's server is one line
            self.failed[cfg.name] = why_failed(e, cfg)
            self.report("failed", f"MCP server {cfg.name} did not start: {self.failed[cfg.name]}",
                        {"server": cfg.name})
            return
        self.live[cfg.name] = state
        self.report("connected", f"MCP server {cfg.name}: {plural(len(state.tools), 'tool')}",
                    {"server": cfg.name, "tools": state.tools})

    async def _start(self, cfg: McpServerConfig) -> ServerState:
        from pydantic_ai.mcp import MCPToolset  # imported only when servers are configured: it is slow

        if cfg.command:
            from fastmcp.client.transports import StdioTransport

            cwd = str((self.cwd / cfg.cwd).resolve()) if cfg.cwd else str(self.cwd)
            client: Any = StdioTransport(command=cfg.command, args=list(cfg.args), env=dict(cfg.env) or None, cwd=cwd,
                                         keep_alive=False)
            toolset = MCPToolset(client, id=cfg.name, tool_error_behavior="failed", init_timeout=cfg.timeout_s,
                                 read_timeout=cfg.tool_timeout_s + 5)  # a call's own limit is said first (mcp_calls.py)
        else:
            toolset = MCPToolset(cfg.url, id=cfg.name, tool_error_behavior="failed", init_timeout=cfg.timeout_s,
                                 read_timeout=cfg.tool_timeout_s + 5, headers=dict(cfg.headers) or None)
        before = group_leaders() if cfg.command else set()
        try:
            await self._entered(toolset, cfg.timeout_s, cfg.name)
        finally:
            for pid in (group_leaders() - before - self._pids) if cfg.command else ():
                self._pids.add(pid)
                self._groups.enter_context(running(pid))
        try:
            tools = await asyncio.wait_for(toolset.list_tools(), cfg.timeout_s)
        except BaseException:
            with contextlib.suppress(Exception):
                await toolset.__aexit__(None, None, None)
            raise
        return ServerState(cfg, toolset, [f"{cfg.name}_{t.name}" for t in tools], kept_start(toolset.instructions or ""))

    async def _entered(self, toolset: Any, limit: float, name: str) -> None:
        """`toolset` connected within `limit` seconds, else TimeoutError at `limit`: the client kept
        to no init_timeout, and undoing a start cancelled took five seconds more, after which the
        line came. Its undoing goes on meanwhile, waited for as the servers close. The tasks the
        client starts to read the server carry its `name`, for its warnings (mcp_failures.SERVER)."""
        name_the_server_in_warnings()
        context = contextvars.copy_context()
        context.run(SERVER.set, name)
        entering = asyncio.get_running_loop().create_task(toolset.__aenter__(), context=context)
        if not (await asyncio.wait({entering}, timeout=limit))[0]:
            entering.cancel()
            self._abandoned.add(entering)
            raise TimeoutError
        entering.result()

    def offered(self, name: str, listed: list[str], state: ServerState | None = None) -> dict[str, str]:
        """Server `name`'s tools, as it `listed` them now (`<server>_<tool>`), to the names the model is
        offered them under (mcp_names.py): worked out again when its list changed, each tool left out
        or renamed said once in a line, and its declaration then made anew (`delta_text`)."""
        state = state or self.live[name]
        states = {s.config.name: s for s in (*self.live.values(), *self._ended)}  # a stopped one's names kept
        order = [cfg.name for cfg in self.configs if cfg.name in states]
        earlier = order[:order.index(name)] if name in order else []  # the first of two names keeps it
        taken = frozenset(BUILT_IN) | {t for n in earlier for t in states[n].tools}
        if (listed, taken) != state.basis:
            names = offer(name, listed, set(taken))
            for tool, line in names.notes:
                if line not in state.said:
                    state.said.add(line)
                    self.report("failed", f"MCP server {name}: {line}", {"server": name, "tool": tool})
            state.basis, state.offered, state.tools = (listed, taken), names.names, list(names.names.values())
        return state.offered

    async def aclose(self) -> None:
        """Close every server at once. A program a server runs ends with it: its input is closed, and
        the MCP client kills one that has not ended two seconds later (the transport is not kept
        alive after its client closes, as it is by default, which left the program running after
        the session, and after the agent exited when it ignores its closed input)."""
        async def close(state: ServerState) -> None:
            with contextlib.suppress(Exception):
                await state.toolset.__aexit__(None, None, None)

        await asyncio.gather(*(close(s) for s in [*self.live.values(), *self._ended]),
                             *self._abandoned, return_exceptions=True)
        self._abandoned.clear()
        self.live.clear()
        self._ended.clear()
        self._groups.close()  # their programs waited for (or killed) by the client as it closed
        self._pids.clear()
        self.toolset.toolsets = []

    def compactable_tools(self) -> set[str]:
        return {t for s in self.live.values() if s.config.compactable for t in s.tools}

    # -- what the model is told -------------------------------------------------------------------
    def delta_text(self) -> str | None:
        """The servers the conversation does not describe yet (or describes out of date: a list that
        changed, tools moved behind tool_search or out of it), for the start of a turn; records them
        as announced."""
        searched = self.searched()
        if self.resumed is not None:  # what it declares of them already (mcp_declaration.declared)
            self.announced.update(declared(self.resumed, list(self.live.values()), searched))
            self.resumed = None
        changed = [s for n, s in self.live.items() if self.announced.get(n) != fingerprint(s, searched)]
        if not changed:
            return None
        new = [s for s in changed if s.config.name not in self.announced]
        again = [s for s in changed if s.config.name in self.announced]
        for s in changed:
            self.announced[s.config.name] = fingerprint(s, searched)
        return "\n".join(text(states, verb, searched) for states, verb in ((new, CONNECTED), (again, AGAIN)) if states)

    def restore_text(self) -> str | None:
        """Every server, for after a compaction (which removed the earlier declarations).
        Takes effect in `announced` only when the compaction is applied (`commit_restore`)."""
        if not self.live:
            return None
        searched = self.searched()
        self._pending = {n: fingerprint(s, searched) for n, s in self.live.items()}
        return text(list(self.live.values()), AVAILABLE, searched)

    def commit_restore(self) -> None:
        if self._pending is not None:
            self.announced = self._pending
            self._pending = None
