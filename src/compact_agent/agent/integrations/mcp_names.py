"""The names an MCP server's tools are offered under: `<server>_<tool>`, as every provider takes them.

OpenAI takes a tool's name only when it is letters, digits, `_` and `-`, at most 64 of them (Anthropic
128): one server's `fetch.url`, or a long name, made every request of the session fail. Such a name
is offered with each other character as `_`, and cut to 64 with a short hash of the whole kept, so
two long names stay two. A name the agent's own tools have (a server `read`'s tool `file` is
`read_file`) is not offered at all (mcp_servers.py says so in a line).
"""

from __future__ import annotations

import hashlib
import re

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
