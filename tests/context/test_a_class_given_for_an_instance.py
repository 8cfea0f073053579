"""`settings=CompactionSettings` (the class, the parentheses forgotten) was taken: the class has
every field's name, so it passed for "an object with its fields", and the manager ran on a class
whose checks never ran. It is refused as `store=InMemoryStore` is, and so is `prices=Prices`
(which said "not type")."""

from __future__ import annotations

import pytest
from pydantic_ai.messages import ModelRequest, UserPromptPart
from pydantic_ai.models.function import FunctionModel

from compact_agent.context import CompactionSettings, ContextManager, Prices


@pytest.mark.parametrize(("given", "said"), [
    ({"settings": CompactionSettings},
     "settings must be a CompactionSettings instance (CompactionSettings()), not the class CompactionSettings"),
    ({"prices": Prices}, "prices must be a Prices instance (Prices()), not the class Prices"),
    ({"summary_model": FunctionModel},  # said "not ABCMeta" (the class's own type), "not type" before
     "summary_model must be a pydantic-ai Model instance (FunctionModel(...)) or a model name, not the class "
     "FunctionModel"),
    ({"notes_in_background": bool}, "notes_in_background must be True or False, not the class bool"),
    ({"compactable_tools": [str]}, "compactable_tools must be a list of tool names, but item 1 is the class str, "
                                   "not a name"),
])
def test_a_class_where_an_instance_belongs_is_refused_in_one_line(given: dict[str, object], said: str) -> None:
    with pytest.raises(TypeError) as caught:
        ContextManager(window=16_000, **given)  # type: ignore[arg-type]
    assert str(caught.value) == said


def test_an_object_of_another_class_with_the_settings_fields_is_still_taken() -> None:
    """What the check is for: an application's own settings object with these names."""

    class AppSettings:
        def __init__(self) -> None:
            for name, value in vars(CompactionSettings()).items():
                setattr(self, name, value)

    assert ContextManager(window=16_000, settings=AppSettings()).window == 16_000  # type: ignore[arg-type]


async def test_a_model_class_given_to_compact_now_is_named_as_one() -> None:
    with pytest.raises(TypeError) as caught:
        await ContextManager(window=16_000).compact_now([ModelRequest(parts=[UserPromptPart("hi")])],
                                                        model=FunctionModel)  # type: ignore[arg-type]
    assert str(caught.value) == ("compact_now: model must be a pydantic-ai Model instance (FunctionModel(...)) or a "
                                 "model name, not the class FunctionModel")


def test_a_class_in_a_setting_is_named_as_one() -> None:
    with pytest.raises(TypeError) as caught:
        CompactionSettings(tool_result_preview_chars=int)  # type: ignore[arg-type]
    assert str(caught.value) == ("CompactionSettings.tool_result_preview_chars must be a whole number, 0 or more, "
                                 "not the class int")
