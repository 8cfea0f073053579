"""The names an MCP server's tools are offered under: `<server>_<tool>`, as every provider takes them.

OpenAI takes a tool's name only when it is letters, digits, `_` and `-`, at most 64 of them (Anthropic
128): one server's `fetch.url`, or a long name, made every request of the session fail. Such a name
is offered with each other character as `_`, and cut to 64 with a short hash of the whole kept, so
two long names stay two. A name the agent's own tools have (a server `read`'s tool `file` is
`read_file`) is not offered at all (mcp_servers.py says so in a line).

`offer` works the names out from a server's list as it is at each request: a server may change its
list while the session runs (`notifications/tools/list_changed`), and a tool it adds is held to the
same rules as those it had at its start.
"""

from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass, field

from ..tools.names import TOOL_NAMES
from ..tools.tool_search import SEARCH

#: The names of the agent's own tools: the file tools and bash, the plan's, tool_search.
BUILT_IN: frozenset[str] = frozenset({*TOOL_NAMES, "todo_write", SEARCH})
NAME_RULE = "a tool name is letters, digits, _ and -, at most 64"
_VALID = re.compile(r"^[A-Za-z0-9_-]{1,64}$")
_OTHER = re.compile(r"[^A-Za-z0-9_-]")
MAX = 64


def valid_name(name: str) -> str:
    """`name` if every provider takes it, else the nearest such name (see the module's docstring)."""
    if _VALID.match(name):
        return name
    plain = _OTHER.sub("_", name)
    if len(plain) <= MAX:
        return plain
    digest = hashlib.sha256(name.encode()).hexdigest()[:8]
    return f"{plain[:MAX - 9]}_{digest}"


@dataclass
class Offered:
    """A server's tools as the model is offered them: each listed `<server>_<tool>` name to the name
    it is offered under (a tool left out is not there), and a line for each left out or renamed."""

    names: dict[str, str] = field(default_factory=dict)
    notes: list[tuple[str, str]] = field(default_factory=list)  # (the tool's own name, the line)


def offer(server: str, listed: list[str], taken: set[str]) -> Offered:
    """Server `server`'s tools, listed as `<server>_<tool>`, as the model is offered them: each made a
    name every provider takes, and left out when that name is in `taken` (a built-in tool's, or an
    earlier server's: pydantic-ai stopped every turn on the clash) or an earlier tool's of its own."""
    out = Offered()
    for wanted in listed:
        final, tool = valid_name(wanted), wanted[len(server) + 1:]
        if final in taken or final in out.names.values():
            whose = "a built-in tool's" if final in BUILT_IN else "another MCP server's tool's" if final in taken \
                else "another of its tools'"
            out.notes.append((tool, f"tool {tool} left out: its name {final} is {whose}"))
            continue
        if final != wanted:
            out.notes.append((tool, f"tool {tool} is offered as {final} ({NAME_RULE})"))
        out.names[wanted] = final
    return out
