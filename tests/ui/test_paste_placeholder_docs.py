"""docs/usage.md describes the REPL input's paste placeholder where it describes the input, with the
sizes pastes.py holds a paste back at and the placeholder's words as the input shows them."""

from __future__ import annotations

from pathlib import Path

from compact_agent.ui.pastes import MOST_CHARS, MOST_LINES, Pastes

ROOT = Path(__file__).resolve().parents[2]


def input_bullet() -> str:
    text = (ROOT / "docs" / "usage.md").read_text(encoding="utf-8")
    return " ".join(text.split("- **Input:**", 1)[1].split("\n- **", 1)[0].split())


def test_the_input_section_describes_the_placeholder() -> None:
    bullet = input_bullet()
    lines = "".join(f"line {i}\n" for i in range(200))
    pastes = Pastes()
    first, second = pastes.insert(lines), pastes.insert(lines)
    assert f"`{first}`" in bullet and f"`{second}`" in bullet, bullet
    assert f"more than {MOST_LINES} lines or {MOST_CHARS:,} characters" in bullet, bullet
    assert "removes it with its paste" in bullet and "while a turn runs" in bullet, bullet
