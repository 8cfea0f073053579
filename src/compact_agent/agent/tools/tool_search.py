"""MCP tools that do not eat a small window: past a tenth of it, their schemas wait behind a search.

A few MCP servers can bring dozens of tools whose JSON schemas, sent with every request, take a
large share of an 8K–32K window before the conversation starts. When the MCP tool definitions
exceed `DEFER_SHARE` of the window, the model sees `tool_search` instead of them: it names what it
needs ("notes", "create issue"), gets the matching tools' names and descriptions, and those tools
(only those) are sent from its next step on — as Claude Code's tool search does.

The tools found are kept beside the session (`tool_search.json` in its folder), as the plan is: a
session resumed (`-c`, `-r`, `/resume`) sends them from its first request, as the run that found
them did; they were forgotten with the run, and a model that called one, as its history showed it
had, was told no such tool existed.
"""

from __future__ import annotations

import contextlib
import json
import logging
from collections.abc import Callable
from pathlib import Path
from typing import Any

from pydantic_ai.tools import ToolDefinition
from pydantic_ai.toolsets import AbstractToolset, CombinedToolset, FunctionToolset

from ...context.plumbing import tokens
from ...regular_file import read_own
from ...session.store import atomic_write
from ...words import quoted

log = logging.getLogger(__name__)

#: Defer the MCP tools' schemas when they would take more than this share of the window.
DEFER_SHARE = 0.1
SEARCH = "tool_search"
MAX_FOUND = 8


class DeferredTools:
    """Which MCP tools are sent: all of them while they are small, else those the model searched for."""

    def __init__(self, window: Callable[[], int], path: Path | None = None) -> None:
        self.window = window
        self.path = path  # where the tools found are kept, for the session resumed
        self.loaded: set[str] = set()
        self.defs: dict[str, ToolDefinition] = {}
        self.deferring = False
        self.warning = ""
        if path is not None:
            self._load(path)

    def _load(self, path: Path) -> None:
        try:
            with contextlib.suppress(FileNotFoundError):  # none found yet
                names = json.loads(read_own(path).decode("utf-8"))["loaded"]
                self.loaded = {name for name in names if isinstance(name, str)}
        except (OSError, ValueError, KeyError, TypeError, RecursionError):
            self.warning = f"{path.name} is unreadable; tools found by tool_search earlier must be searched for again"

    def _save(self) -> None:
        if self.path is not None:
            try:
                atomic_write(self.path, json.dumps({"loaded": sorted(self.loaded)}).encode())
            except OSError as e:
                log.warning("could not save the tools tool_search found: %s", e)

    async def prepare(self, ctx: Any, defs: list[ToolDefinition]) -> list[ToolDefinition]:
        mcp = [d for d in defs if d.name != SEARCH]
        self.defs = {d.name: d for d in mcp}
        self.deferring = tokens.request_overhead(None, mcp) > DEFER_SHARE * self.window()
        if not self.deferring:
            return mcp
        return [d for d in defs if d.name == SEARCH or d.name in self.loaded]

    def search(self, query: str) -> str:
        words = [w for w in query.lower().replace("_", " ").split() if w]
        if not words:
            return "Give a few words describing the tool you need (e.g. 'notes lookup')."

        def score(d: ToolDefinition) -> int:
            text = f"{d.name.replace('_', ' ')} {d.description or ''}".lower()
            return sum(w in text for w in words)

        found = sorted((d for d in self.defs.values() if score(d) > 0), key=lambda d: (-score(d), d.name))[:MAX_FOUND]
        if not found:
            return f"No tool matches {quoted(query)}. Available: {', '.join(sorted(self.defs))[:1500]}"
        if new := {d.name for d in found} - self.loaded:
            self.loaded |= new
            self._save()
        lines = [f"- {d.name}: {' '.join((d.description or '').split())[:300]}" for d in found]
        return "These tools are available from your next step; call them directly:\n" + "\n".join(lines)


def with_tool_search(mcp_toolset: AbstractToolset[Any], deferred: DeferredTools) -> AbstractToolset[Any]:
    """The MCP toolset plus `tool_search`, filtered by `deferred` at every request."""
    search: FunctionToolset[Any] = FunctionToolset()

    @search.tool_plain(name=SEARCH)
    def tool_search(query: str) -> str:
        """Find MCP tools by what they do (a few words); the tools found can be called from the next step on."""
        return deferred.search(query)

    return CombinedToolset([mcp_toolset, search]).prepared(deferred.prepare)
