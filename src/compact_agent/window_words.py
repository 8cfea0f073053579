"""A request the window cannot hold (the library's `WindowTooSmallError`), in the agent's words.

The library names what a caller of `ContextManager` can change (`window=`, `instructions`, the tools,
`CompactionSettings`); a user of the agent changes other things: `--context-window` (or the server's
own window), the tools and MCP servers it is given, the instruction files read into its system prompt
(CLAUDE.md, AGENTS.md), the config file. `error_text.describe_error` ends a run with this line.
"""

from __future__ import annotations

from .context.plumbing.refusal import LARGER

#: The library's words, each with the agent's for the same thing (in this order: the advice before
#: the part it names, which it contains).
_WORDS = (
    (LARGER, "use a larger --context-window (or, where the window is a server's own, start that server with a "
             "larger one)"),
    ("a smaller CompactionSettings(tool_result_preview_chars=...)",
     "a smaller tool_result_preview_chars under [compaction] in the config file"),
    ("send shorter instructions or fewer tools",
     "use fewer tools or MCP servers, or a shorter instructions file (CLAUDE.md, AGENTS.md)"),
    ("instructions and tool definitions", "system prompt (instruction files included) and tool definitions"),
)


def in_agent_words(line: str) -> str:
    """`line`, a `WindowTooSmallError`'s, with what to do said as a user of the agent does it."""
    for library, agent in _WORDS:
        line = line.replace(library, agent)
    return line
