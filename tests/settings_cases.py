"""What the settings tests share: the one line a refused configuration is said in."""

from __future__ import annotations

from pathlib import Path

import pytest

from compact_agent.settings_file import SettingsError, load


def refused(cwd: Path) -> str:
    """The error line `load(cwd)` refuses the settings with (it must refuse them)."""
    with pytest.raises(SettingsError) as info:
        load(cwd)
    return str(info.value)
