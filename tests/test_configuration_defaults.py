"""docs/configuration.md's table of the pipeline's settings gives each setting's default as the
code has it (`Settings`, config.py). A default changed in the code left the table as it was and no
test said so."""

from __future__ import annotations

import dataclasses
import re
from pathlib import Path
from typing import Any

from compact_agent.config import Settings
from compact_agent.context.plumbing.settings import CompactionSettings

DOC = Path(__file__).resolve().parents[1] / "docs" / "configuration.md"
MODELS_OWN = "the model's own"  # `cache_ttl_minutes`: unset, the model registry's


def table() -> dict[str, str]:
    """Each setting the table names, with its default as the table writes it: a row naming several
    settings gives their defaults in the same order, separated by commas."""
    lines = DOC.read_text().split("\n")
    start = lines.index("| setting | default | what it does |")
    rows: dict[str, str] = {}
    for line in lines[start + 2:]:
        if not line.startswith("|"):
            break
        names_cell, default_cell = (cell.strip() for cell in line.strip("|").split("|")[:2])
        names = re.findall(r"`(\w+)`", names_cell)
        defaults = [default_cell] if len(names) == 1 else [d.strip() for d in default_cell.split(",")]
        assert len(defaults) == len(names), f"docs/configuration.md: the row of {names_cell} gives {default_cell!r}"
        rows.update(zip(names, defaults, strict=True))
    return rows


def written(value: Any) -> str:
    """A default as the table writes it."""
    if value is None:
        return MODELS_OWN
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, list | tuple):
        return "[" + ", ".join(map(str, value)) + "]"
    return f"{value:g}" if isinstance(value, float) else str(value)


def test_the_table_gives_each_setting_its_default_in_the_code() -> None:
    wrong = []
    for name, said in table().items():
        if name not in Settings.model_fields:
            wrong.append(f"{name}: no such setting")
        elif said != (code := written(Settings.model_fields[name].default)):
            wrong.append(f"{name}: the table says {said}, Settings has {code}")
    assert not wrong, "docs/configuration.md's table of the pipeline's settings: " + "; ".join(wrong)


def test_the_table_names_every_pipeline_setting() -> None:
    agent_only = {"anthropic_server_clearing", "cache_ttl_minutes"}  # the two the library does not have
    rows = table()
    missing = [f.name for f in dataclasses.fields(CompactionSettings) if f.name not in rows and f.name in Settings.model_fields]
    assert not missing, f"docs/configuration.md's table of the pipeline's settings does not give {', '.join(missing)}"
    assert agent_only <= set(rows)
