"""The tools the user allowed whole (`--allowed-tools write_file,docs_search`), kept in the order
they were named: a set for the permission checks, and what names none of the MCP servers' tools is
warned of in that order (mcp_calls.unmatched_rules), where a set listed it alphabetically."""

from __future__ import annotations

from collections.abc import Iterable, Iterator, MutableSet


class AllowedTools(MutableSet[str]):
    """A set of tool names that iterates in the order they were added, each once."""

    def __init__(self, names: Iterable[str] = ()) -> None:
        self._names: dict[str, None] = dict.fromkeys(names)

    def __contains__(self, name: object) -> bool:
        return name in self._names

    def __iter__(self) -> Iterator[str]:
        return iter(self._names)

    def __len__(self) -> int:
        return len(self._names)

    def __repr__(self) -> str:
        return f"AllowedTools({list(self._names)!r})"

    def add(self, name: str) -> None:
        self._names[name] = None

    def discard(self, name: str) -> None:
        self._names.pop(name, None)

    def update(self, names: Iterable[str]) -> None:
        """As `set.update`: the new names after those there, in their order."""
        self._names.update(dict.fromkeys(names))
