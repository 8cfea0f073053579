"""`--allowed-tools` values: whole tools (`write_file`), an MCP server's tools by the names the model
calls them (`docs_search`: `<server>_<tool>`), and `bash(PATTERN)` allow rules, comma-separated or
repeated; one that is none of these is refused in one line naming it. Which MCP servers there are
is not known yet when they are read: a name of that shape is taken, unless it is a built-in
tool's with a letter wrong (`write_fle`), which is said as the typo it is; one that no server
offers is said once their lists are known (mcp_calls.unmatched_rules), with the tools there are."""

from __future__ import annotations

import difflib
import re

from .cli_help import fail
from .words import quoted

#: An MCP tool's name as the model is offered it (mcp_names.py): `<server>_<tool>`.
_MCP_NAME = re.compile(r"^[A-Za-z0-9-]+_[A-Za-z0-9_-]+$")


def allowed_rules(values: list[str]) -> tuple[tuple[str, ...], list[str]]:
    """--allowed-tools values: whole tools (built-in or MCP), and `bash(PATTERN)` allow rules."""
    from .agent.tools.names import TOOL_NAMES  # the agent's modules only when a value is given

    tools: list[str] = []
    patterns: list[str] = []
    for value in values:
        for item in _rules(value):
            if item.startswith("bash(") and item.count("(") > item.count(")"):
                raise fail(f"--allowed-tools: the rule {quoted(item)} does not close its parenthesis; "
                           "write bash(PATTERN), e.g. 'bash(pytest *)'", 2)
            if item.startswith("bash(") and item.endswith(")"):
                if not item[5:-1].strip():  # it would allow no command at all: not what was meant
                    raise fail(f"--allowed-tools: the rule {quoted(item)} gives no pattern; write 'bash' to allow "
                               "every command, or bash(PATTERN), e.g. 'bash(pytest *)'", 2)
                patterns.append(item[5:-1])
            elif item in TOOL_NAMES or (_MCP_NAME.match(item) and len(item) <= 64 and typo_of(item) is None):
                tools.append(item)
            else:
                from .setting_names import closest

                choices = (f"use one of {', '.join(TOOL_NAMES)} or bash(PATTERN), or an MCP server's tool as the "
                           "model calls it, SERVER_TOOL (a pattern of them goes in the server's allow_tools)")
                if (close := typo_of(item) or closest(item, TOOL_NAMES)) is not None:  # `bsh`: bash
                    choices = f"did you mean {close}? ({choices})"
                raise fail(f"--allowed-tools: unknown tool {quoted(item)}; {choices}", 2)
    return tuple(tools), patterns


def typo_of(name: str) -> str | None:
    """The built-in tool `name` is one slip away from (`write_fle`, `read_files`), else None: an MCP
    tool's name may be like one and be none (`evil_file` is like `edit_file`)."""
    from .agent.tools.names import TOOL_NAMES

    close = difflib.get_close_matches(name, TOOL_NAMES, n=1, cutoff=0.9)
    return close[0] if close and close[0] != name else None


def _rules(value: str) -> list[str]:
    """The comma-separated rules of one --allowed-tools value; a comma inside `bash(...)` is the
    pattern's (`bash(git log --format=%h,%s)`), so an unclosed parenthesis runs to the end."""
    rules: list[str] = []
    depth = start = 0
    for i, ch in enumerate(value):
        if ch == "(":
            depth += 1
        elif ch == ")" and depth:
            depth -= 1
        elif ch == "," and not depth:
            rules.append(value[start:i])
            start = i + 1
    rules.append(value[start:])
    return [r.strip() for r in rules if r.strip()]
