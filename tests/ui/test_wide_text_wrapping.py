"""The REPL's own cutting and wrapping count screen cells, not characters: a Chinese character or
an emoji takes two cells, so text cut or wrapped at 60 characters took up to 120 columns and the
terminal wrapped it again at column 0 (a /history or /rewind line, a session of the `-r` list, a
tool's several problems, a rewrite's words in /history). ASCII text is cut where it was."""

from __future__ import annotations

from rich.cells import cell_len

from compact_agent.ui import cells, render, tool_lines
from compact_agent.ui.history_view import WORDS_AT, boundary_lines
from compact_agent.ui.sessions_list import SessionRow, format_row

CHINESE = "请检查构建日志中的错误信息 然后重新运行测试套件 并且确认所有的依赖都已经安装好了 再把结果告诉我"
EMOJI = "🚀 deploy ✅ done " * 12


def test_clip_words_counts_cells() -> None:
    for text in (CHINESE, EMOJI):
        for n in (20, 40, 61):
            cut = render.clip_words(text, n)
            assert cell_len(cut) <= n and cut.endswith("…"), (n, cut)
            assert cell_len(cut) >= n // 2, (n, cut)  # cut near the width, not at half the characters
    assert render.clip_words("RED\rprompt and a long tail of words", 20) == "RED\rprompt and a…"  # ASCII as it was
    assert render.clip_words("short", 20) == "short"


def test_a_session_row_of_a_wide_prompt_fits_the_terminal() -> None:
    for prompt in (CHINESE, EMOJI):
        for fit in (30, 60, 80):
            row = format_row(1, SessionRow("20261203-120000-abcdef", "2026-12-03 12:00", 4, prompt), fit=fit)
            assert cell_len(row) <= fit - 1, (fit, row)


def test_several_problems_of_a_call_wrap_in_cells() -> None:
    summary = "path: " + CHINESE + "\ncontent: " + "缺少必需的参数内容字段" * 4
    result = {"type": "tool_result", "id": "1", "tool": "write_file", "error": True, "summary": summary}
    for width in (60, 80):
        rows = tool_lines.result_line(result, width).split("\n")
        assert len(rows) > 2 and all(cell_len(r) <= width for r in rows), rows


def test_a_rewrites_words_in_history_wrap_in_cells() -> None:
    what = "compaction (manual, full: " + CHINESE + ")  4,512 → 2,230 tokens"
    rows = boundary_lines("2026-12-03 12:00", what, 60)
    assert all(cell_len(r) <= 60 for r in rows), rows
    assert rows[-1].strip() == "4,512 → 2,230 tokens" or rows[-1].endswith("tokens"), rows
    assert all(r[:WORDS_AT].strip() == "" for r in rows[1:])


def test_wrap_and_clip() -> None:
    assert cells.wrap("aa bb cc", 5) == ["aa bb", "cc"]
    assert cells.wrap("中文中文中文", 4) == ["中文", "中文", "中文"]
    assert cells.wrap("a 中文中文中文", 5, indent="  ") == ["a", "  中", "  文", "  中", "  文", "  中", "  文"]
    assert cells.wrap("x 中文中文中文", 4, fold=False) == ["x", "中文中文中文"]
    assert cells.clip("中文中文", 5) == "中文…" and cells.clip("中文", 4) == "中文"
