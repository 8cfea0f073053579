"""The layout (docs/layout.md, once the README's Layout) names modules that exist, and those of the
windows learned from servers: it listed agent/run/ without server_windows.py and window_proof.py,
and the top level without cli_windows.py, so a reader looking for where `config` lists and forgets
the windows kept, or where a session starts within one, found nothing. That every module is named
is tests/test_layout.py's."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SRC = ROOT / "src" / "compact_agent"


def layout() -> str:
    text = (ROOT / "docs" / "layout.md").read_text(encoding="utf-8")
    after = text[text.index("## The modules"):]
    return after.split("```")[1]


def test_every_module_the_layout_names_exists() -> None:
    named = set(re.findall(r"\b([a-z_0-9]+\.py)\b", layout()))
    assert named and named <= {p.name for p in SRC.rglob("*.py")}, named - {p.name for p in SRC.rglob("*.py")}


def test_the_layout_names_the_server_window_modules() -> None:
    block = layout()
    run = block[block.index("    run/"):block.index("    accounting/")]
    assert "server_windows.py (" in run and "window_proof.py (" in run, run
    top = block[:block.index("  context/")]
    assert "cli_windows.py (" in top, top
