"""`compact-agent config` and `/config` with a value in Chinese or Japanese (a model named so, its
characters two cells wide on a terminal): the table padded each value by its count of characters,
so the row's source stood as many columns right of the others' as the value had such characters.
The columns are measured in screen cells, as the terminal shows them."""

from __future__ import annotations

from rich.cells import cell_len

from compact_agent.settings_table import table

ROWS = [("model", "モデル日本語-v1", "flag"), ("base_url", "http://127.0.0.1:8000/v1", "flag"),
        ("context_window", "32768", "assumed: モデル日本語-v1 is not a known model (set context_window)"),
        ("autocompact_buffer", "13000", "default")]


def source_columns(lines: list[str], sources: list[str]) -> list[int]:
    """The screen column each row's source (its first word) begins at."""
    return [cell_len(line[:line.rindex(src.split()[0])]) for line, src in zip(lines, sources, strict=True)]


def test_each_rows_source_begins_at_the_same_screen_column() -> None:
    lines = table(ROWS)
    assert len(lines) == len(ROWS), lines
    assert len(set(source_columns(lines, [src for _, _, src in ROWS]))) == 1, lines


def test_a_wide_value_wraps_by_its_cells_in_a_narrow_terminal() -> None:
    rows = [("model", "日本語のとても長いモデルの名前です " * 3, "flag"), ("prices", "none", "not known")]
    lines = table(rows, 60)
    assert all(cell_len(line) <= 60 for line in lines), [cell_len(line) for line in lines]
    assert len(set(source_columns([lines[0], lines[-1]], ["flag", "not known"]))) == 1, lines
