"""The settings' `COMPACT_AGENT_*` variables, each bad one said with the others.

A list or table setting's variable is JSON (`COMPACT_AGENT_HOOKS='{"PreCompact": "notes"}'`; a list
setting also takes one plain string: config.EnvSource). The reading stopped at the first variable
that was not, so with two such variables the second was said only once the first was fixed; each
is now left out of the values read and said with every other bad value (setting_values.bad_values).
"""

from __future__ import annotations

from typing import Any

from pydantic_settings import SettingsError as PydanticSettingsError

from .config import EnvSource, Settings
from .setting_values import Bad
from .settings_checks import MERGED, SettingsError


class _EveryVariable(EnvSource):
    """The `COMPACT_AGENT_*` values, those that cannot be decoded left out and named in `unread`."""

    def __init__(self) -> None:
        super().__init__(Settings)
        self.unread: list[str] = []

    def prepare_field_value(self, field_name: str, field: Any, value: Any, value_is_complex: bool) -> Any:
        try:
            return super().prepare_field_value(field_name, field, value, value_is_complex)
        except ValueError:
            self.unread.append(field_name)
            return None  # not among the values read


def env_values(bad: list[Bad]) -> dict[str, Any]:
    """The settings' variables' values; each list or table that is not JSON is added to `bad`,
    naming its variable with an example of what it takes."""
    source = _EveryVariable()
    try:
        values = source()
    except PydanticSettingsError:  # not a value that could not be decoded: its variable could not be looked up
        raise SettingsError("the COMPACT_AGENT_* variables could not be read") from None
    for key in source.unread:
        name = f"COMPACT_AGENT_{key.upper()}"
        example = "'{\"NAME\": ...}'" if key in MERGED else "'[\"...\"]'"  # a table, or a list
        bad.append(Bad(key, f"from env {name}", f"expected JSON, e.g. {name}={example}"))
    return values
