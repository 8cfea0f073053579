"""A call of an MCP server's tool, as the agent makes it: within the server's `tool_timeout`, its
result shaped as our own tools' (mcp_results.py), a server whose program has ended said so.

* A call that gets no answer within `tool_timeout` (300 s by default) fails, naming the server, the
  tool and the seconds; the MCP client's own read timeout (five minutes, whatever the config said)
  failed without naming either.
* A call that finds the server's program gone ('Connection closed') fails naming the server, which
  is then no longer listed as connected (`/mcp` said `connected` of a crashed server) and is said
  once in a line; its tools' later calls fail at once, in the same words.
* Tool descriptions and parameter schemas, sent with every request, go without the API key.
* A call needs approval, as a `bash` command does (`refused`). The tool is a program the user did
  not write, acting with the user's credentials (a repository, a database, a shell), and a prompt
  injection in anything the model reads can drive it. So it runs only with `--yes`, with an allow
  rule, or when the user says yes to the question, which names the server and the tool and shows
  the arguments; "always" there allows that tool for the rest of the session. Print mode never
  asks: without `--yes` or a rule the call is refused, naming the flag and the setting that allow
  it. `--allowed-tools docs_search` allows a tool by the name the model calls it (`<server>_<tool>`),
  `allow_tools = ["search"]` in the server's table its tools by their own names (globs: `*` is
  every one), and its `deny_tools` refuses them whatever else allows them. A tool's annotations
  (`readOnlyHint`: it changes nothing) are the server's own claims about itself: they allow nothing.
* A rule that names no tool there is (a typo, a server that did not start) allows nothing, and is
  said once the servers' lists are known, in a line naming it and the tools there are
  (`unmatched_rules`): `--allowed-tools docs_serch`, `allow_tools = ["serch"]`, and a `deny_tools`
  that refuses nothing, which was as silent.
* A server's program is found as it starts (`group_leaders`), so that it is killed with the agent
  however the agent ends (mcp_servers.py hands it to shell_groups.py).
"""

from __future__ import annotations

import asyncio
import dataclasses
import fnmatch
import json
import os
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol

from pydantic_ai.exceptions import ModelRetry, ToolFailed
from pydantic_ai.messages import ToolReturn
from pydantic_ai.toolsets import WrapperToolset

from ... import secrets
from ...context.plumbing.markers import mark
from ...words import quoted
from ..safety.permissions import Permissions
from ..tools.base import declined_mark
from .mcp_failures import CONNECTION_CLOSED
from .mcp_results import Media, cleaned, shaped


class Servers(Protocol):
    """What a call needs of the session's servers (mcp_servers.McpServers)."""

    stopped: dict[str, str]
    media: Callable[[], Media]
    permissions: Callable[[], Permissions | None]  # the session's (None: nobody can allow a call)

    def tool_timeout(self, name: str) -> float: ...
    def ended(self, name: str, tool: str) -> str: ...
    def offered(self, name: str, listed: list[str], state: Any = None) -> dict[str, str]: ...


@dataclass
class ServerTools(WrapperToolset[Any]):
    """One server's tools as the model calls them. Its results pass through the same filter as our
    own tools' (`tool_text`): a server may echo the API key (a config dump, an error), and it must
    not reach the model. Nor may it pass for the user: the marker of the user's words in a refusal
    is marked as a copy (`copied_instead`; a refusal of ours, `refused`, is not its result). Its files go as our
    tools' do (mcp_results.py): an image only to a model that takes it. Its tools are named as
    the server lists them at each request (`Servers.offered`, mcp_names.py), a list that changed
    while the session runs included: `wrapped` gives them as `<server>_<tool>`."""

    servers: Servers | None = None
    server: str = ""
    state: Any = None  # the server's ServerState, which `offered` keeps its names in

    async def get_tools(self, ctx: Any) -> dict[str, Any]:
        tools = await super().get_tools(ctx)
        if self.servers is None:
            return {name: _described(tool) for name, tool in tools.items()}
        offered = self.servers.offered(self.server, list(tools), self.state)
        return {final: _described(_named(tools[listed], final)) for listed, final in offered.items()}

    async def call_tool(self, name: str, tool_args: dict[str, Any], ctx: Any, tool: Any) -> Any:
        servers = self.servers
        if servers is None:
            return shaped(await super().call_tool(name, tool_args, ctx, tool), Media())
        # the server's own `<server>_<tool>` for the name it is offered as
        listed = next((was for was, final in (self.state.offered if self.state else {}).items() if final == name), name)
        ctx, tool = dataclasses.replace(ctx, tool_name=listed), _named(tool, listed)
        if (why := servers.stopped.get(self.server)) is not None:
            raise ToolFailed(why)
        if self.state is not None and (no := refused(servers.permissions(), self.state.config, listed, name,
                                                     tool_args)) is not None:
            return no
        limit = servers.tool_timeout(self.server)
        try:
            result = await asyncio.wait_for(super().call_tool(listed, tool_args, ctx, tool), limit)
        except TimeoutError:
            raise ToolFailed(f"MCP server {self.server} did not answer this call of {name} within {limit:g}s "
                             f"(its tool_timeout in [mcp_servers.{self.server}])") from None
        except ToolFailed as e:  # the server's own words of its failure, cleaned as its results are
            raise ToolFailed(cleaned(e.message)) from None
        except ModelRetry as e:
            if not _closed(e):
                raise ModelRetry(cleaned(e.message)) from None
            raise ToolFailed(servers.ended(self.server, name)) from None
        return shaped(result, servers.media())


#: What an "always" covers of an MCP tool (`Permissions.always`, as `/permissions` lists it).
EVERY_CALL = "every call"
RULE_KEYS = ("allow_tools", "deny_tools")


def matching(rules: Sequence[str], tool: str) -> str | None:
    """The first of `rules` (globs of a server's own tool names) that `tool` matches, else None."""
    return next((rule for rule in rules if fnmatch.fnmatchcase(tool, rule)), None)


def rule_problem(value: Any) -> str | None:
    """Why `value` of a server's `allow_tools` or `deny_tools` is no list of tool names, else None."""
    if not isinstance(value, list) or not all(isinstance(v, str) and v.strip() for v in value):
        return f"expected a list of the server's tool names (`*`: every one), not {json.dumps(value, default=str)}"
    return None


def refused(permissions: Permissions | None, config: Any, listed: str, name: str, args: Any) -> ToolReturn | None:
    """None if server `config`'s tool `listed` (`<server>_<tool>`), offered to the model as `name`,
    may run with `args` now; else the refusal the model gets, a call that did not run."""
    server = config.name
    tool = listed[len(server) + 1:] if listed.startswith(f"{server}_") else listed
    text = _refusal(permissions, config, tool, name, args)
    if text is None:
        return None
    said = declined_mark(text, permissions.said_instead if permissions is not None else None)  # the user's words kept
    return ToolReturn(return_value=secrets.redact(text), metadata=mark(None, "tool", {
        "error": True, "ran": False, **{k: secrets.redact(v) if isinstance(v, str) else v for k, v in said.items()}}))


def _refusal(permissions: Permissions | None, config: Any, tool: str, name: str, args: Any) -> str | None:
    server = config.name
    if (rule := matching(getattr(config, "deny_tools", ()), tool)) is not None:
        return f"permission denied: {name} matches the rule {quoted(rule)} of deny_tools in [mcp_servers.{server}]"
    if permissions is not None and (permissions.mode == "yes" or name in permissions.allowed_tools
                                    or (name, EVERY_CALL) in permissions.always):
        return None
    if matching(getattr(config, "allow_tools", ()), tool) is not None:
        return None
    if permissions is None or permissions.mode == "deny" or permissions.ask is None:
        return (f"permission denied: {name}, the tool {tool} of MCP server {server}, needs approval; rerun with "
                f"--yes, or allow it with --allowed-tools {name} or allow_tools = [{json.dumps(tool)}] "
                f"in [mcp_servers.{server}]")
    shown = json.dumps(args, ensure_ascii=False, indent=2, default=str)
    detail = f"call the tool {tool} of MCP server {server}, " + (f"with these arguments\n{secrets.redact(shown)}"
                                                                 if args else "with no arguments\n")
    return permissions.asked(permissions.ask, name, detail, (name, EVERY_CALL))


#: How many of the tools there are a warning names (`unmatched_rules`), before `and N more`.
NAMED_TOOLS = 20


def unmatched_rules(allowed: Sequence[str], servers: Sequence[tuple[Any, list[str] | None, list[str]]]) -> list[str]:
    """A line for each rule that names no tool there is, of `allowed` (`--allowed-tools`: the names
    the model calls tools by) and of each server's `allow_tools` and `deny_tools` (its own names).
    `servers`: each configured server's config, the names it listed its tools by (`<server>_<tool>`;
    None where it did not start), and the names the model is offered them under."""
    from .mcp_names import BUILT_IN

    offered = [name for _, _, names in servers for name in names]
    everyone = "the servers'"
    lines = []
    for name in dict.fromkeys(allowed):
        if name in BUILT_IN or name in offered:
            continue
        down = next((c.name for c, listed, _ in servers if listed is None and name.startswith(f"{c.name}_")), None)
        why = (f"MCP server {down} did not start" if down else "no MCP servers are configured" if not servers
               else "no MCP server offers a tool of that name")
        lines.append(f"--allowed-tools {name} allows nothing: {why} ({_choices(name, offered, everyone)})")
    for config, listed, _ in servers:
        if listed is None:  # its failure is said already: which tools it has is not known
            continue
        own = [n.removeprefix(f"{config.name}_") for n in listed]
        for key, does in zip(RULE_KEYS, ("allows", "refuses"), strict=True):
            for rule in getattr(config, key, ()):
                if not any(matching([rule], t) for t in own):
                    lines.append(f"mcp_servers.{config.name}.{key}: {quoted(rule)} matches none of the server's "
                                 f"tools, so it {does} nothing ({_choices(rule, own, 'its')})")
    return lines


def _choices(name: str, tools: list[str], whose: str) -> str:
    """`did you mean docs_search? the servers' tools: docs_search, docs_fetch` (NAMED_TOOLS of them at
    most); `whose`: "the servers'" or "its"."""
    from ...setting_names import closest

    if not tools:
        return "no server offers any tool" if whose == "the servers'" else "it offers no tool"
    more = len(tools) - NAMED_TOOLS
    said = f"{whose} tools: {', '.join(tools[:NAMED_TOOLS])}" + (f" and {more} more" if more > 0 else "")
    close = closest(name, tools)
    return f"did you mean {close}? {said}" if close else said


def _closed(e: BaseException) -> bool:
    """Whether `e` says the server's stream ended (its program exited, or closed its output)."""
    seen: set[int] = set()
    stack: list[BaseException | None] = [e]
    while stack:
        c = stack.pop()
        if c is None or id(c) in seen:
            continue
        seen.add(id(c))
        if getattr(c, "code", None) == CONNECTION_CLOSED:
            return True
        stack += [c.__cause__, c.__context__]
    return False


def _named(tool: Any, name: str) -> Any:
    """`tool` (a ToolsetTool) under `name`."""
    if tool.tool_def.name == name:
        return tool
    return dataclasses.replace(tool, tool_def=dataclasses.replace(tool.tool_def, name=name))


def _described(tool: Any) -> Any:
    """`tool` (a ToolsetTool) as the model is told it: its description and parameters without the
    key. Its arguments are still checked against the schema the server gave."""
    told = tool.tool_def
    dumped = json.dumps([told.description, told.parameters_json_schema], ensure_ascii=False)
    if (cleaned := secrets.redact(dumped)) == dumped:
        return tool
    description, schema = json.loads(cleaned)
    return dataclasses.replace(tool, tool_def=dataclasses.replace(told, description=description,
                                                                  parameters_json_schema=schema))


def group_leaders() -> set[int]:
    """This process's children that lead their own session, as a server's program does (read from
    /proc; empty where there is none)."""
    me, found = os.getpid(), set[int]()
    try:
        names = os.listdir("/proc")
    except OSError:
        return found
    for name in names:
        if name.isdigit():
            try:
                fields = Path(f"/proc/{name}/stat").read_text().rsplit(")", 1)[1].split()
            except (OSError, IndexError):
                continue
            if len(fields) > 3 and fields[1] == str(me) and fields[3] == name:  # its parent, its session
                found.add(int(name))
    return found
