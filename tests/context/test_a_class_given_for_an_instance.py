"""`settings=CompactionSettings` (the class, the parentheses forgotten) was taken: the class has
every field's name, so it passed for "an object with its fields", and the manager ran on a class
whose checks never ran. It is refused as `store=InMemoryStore` is, and so is `prices=Prices`
(which said "not type")."""

from __future__ import annotations

import pytest

from compact_agent.context import CompactionSettings, ContextManager, Prices


@pytest.mark.parametrize(("given", "said"), [
    ({"settings": CompactionSettings},
     "settings must be a CompactionSettings instance (CompactionSettings()), not the class CompactionSettings"),
    ({"prices": Prices}, "prices must be a Prices instance (Prices()), not the class Prices"),
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
