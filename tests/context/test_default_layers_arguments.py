"""`default_layers(settings, ...)` names a wrong settings or tool list in one line of its own.

`default_layers(None)` (the manager takes `settings=None` for the defaults) stopped with the layers'
"AttributeError: 'NoneType' object has no attribute 'compactable_tools'"; and
`default_layers(settings, compactable="read_file")` was taken as the tools 'r', 'e', 'a', 'd', ...,
so microcompact never cleared a `read_file` result, with no word."""

from __future__ import annotations

import pytest

from compact_agent.context import CompactionSettings, default_layers
from compact_agent.context.layers.microcompact import Microcompact


@pytest.mark.parametrize(("settings", "said"), [(None, "NoneType"), ({"collapse_enabled": False}, "dict")])
def test_what_is_no_settings_is_refused(settings: object, said: str) -> None:
    with pytest.raises(TypeError) as caught:
        default_layers(settings)  # type: ignore[arg-type]
    assert str(caught.value) == ("default_layers: settings must be a CompactionSettings (CompactionSettings() for "
                                 f"the defaults), not {said}")


def test_one_tool_name_given_as_text_is_refused() -> None:
    with pytest.raises(TypeError) as caught:
        default_layers(CompactionSettings(), compactable="read_file")
    assert str(caught.value) == "default_layers: compactable must be a list of tool names, not 'read_file'"


def test_a_list_of_names_is_what_microcompact_clears() -> None:
    layers = default_layers(CompactionSettings(), compactable=["read_file"])
    (micro,) = [x for x in layers if isinstance(x, Microcompact)]
    assert "read_file" in micro.compactable and "r" not in micro.compactable
