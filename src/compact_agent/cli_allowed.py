"""`--allowed-tools` values: whole tools (`write_file`) and `bash(PATTERN)` allow rules, comma-separated
or repeated; one that is neither is refused in one line naming it."""

from __future__ import annotations

from .cli_help import fail
from .words import quoted


def allowed_rules(values: list[str]) -> tuple[tuple[str, ...], list[str]]:
    """--allowed-tools values: whole tools, and `bash(PATTERN)` allow rules."""
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
            elif item in TOOL_NAMES:
                tools.append(item)
            else:
                from .setting_names import closest

                choices = f"use one of {', '.join(TOOL_NAMES)} or bash(PATTERN)"
                if (close := closest(item, TOOL_NAMES)) is not None:  # `bsh`: bash
                    choices = f"did you mean {close}? ({choices})"
                raise fail(f"--allowed-tools: unknown tool {quoted(item)}; {choices}", 2)
    return tuple(tools), patterns


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
