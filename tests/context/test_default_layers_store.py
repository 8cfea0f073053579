"""`default_layers(settings, store)` takes any store, as the manager does with its own: one with side
files (`side_dir()`) gets the spilled tool results and the collapse log, one without (the default
`InMemoryStore`) keeps both in memory. Given the default store it failed with an internal
`AttributeError: 'InMemoryStore' object has no attribute 'side_dir'`; what is not a store is now
refused in one line of the library's own. Settings are taken as the manager takes them (an
object with their fields will do: test_a_class_given_for_an_instance.py)."""

from __future__ import annotations

from pathlib import Path

import pytest

from compact_agent.context import CompactionSettings, ContextManager, InMemoryStore, default_layers
from compact_agent.context.layers.budget import ToolResultBudget
from compact_agent.context.layers.collapse import ContextCollapse

from .folder_store import FolderStore


def _where(layers: list[object]) -> tuple[Path | None, Path | None]:
    budget, collapse = layers[0], layers[-1]
    assert isinstance(budget, ToolResultBudget) and isinstance(collapse, ContextCollapse)
    return budget.spill_dir, collapse.log_path


def test_a_store_without_side_files_gives_the_layers_the_manager_makes_with_it() -> None:
    layers = default_layers(CompactionSettings(), InMemoryStore())
    own = ContextManager(window=8_000).layers  # the manager's, on its default InMemoryStore
    assert [type(x) for x in layers] == [type(x) for x in own] and len(layers) == 4
    assert _where(list(layers)) == (None, None)  # long results are sent as previews, not spilled


def test_a_store_with_side_files_gets_the_spills_and_the_collapse_log(tmp_path: Path) -> None:
    layers = default_layers(CompactionSettings(), FolderStore(tmp_path))
    assert _where(list(layers)) == (tmp_path / "tool-results", tmp_path / "collapse" / "commits.jsonl")


@pytest.mark.parametrize(("store", "said"), [
    (InMemoryStore, "default_layers: store must be a store (a HistoryStore, or one with "
     "side_dir() to spill long tool results: SideFiles) or None, not the class InMemoryStore"),
    (Path("side"), "default_layers: store must be a store (a HistoryStore, or one with "
     "side_dir() to spill long tool results: SideFiles) or None, not PosixPath"),
])
def test_what_is_not_a_store_is_refused_in_one_line(store: object, said: str) -> None:
    with pytest.raises(TypeError) as caught:
        default_layers(CompactionSettings(), store)  # type: ignore[arg-type]
    assert str(caught.value) == said
