"""A tool call's and a result's line are cut to the terminal's width in screen cells, not in
characters: a command or a path in Chinese, or with emoji, takes two cells a character, so a line
cut at 60 characters took up to 120 columns and wrapped to column 0 under the dot."""

from __future__ import annotations

import io

from rich.cells import cell_len
from rich.console import Console

from compact_agent.ui import tool_lines
from compact_agent.ui.turn_view import TurnView

CHINESE = "echo 构建失败了请检查日志文件中的错误信息然后重新运行测试套件并且确认所有的依赖都已经安装好了"
EMOJI = "echo " + "🚀 deploy ✅ done " * 8


def rows(width: int, *events: dict[str, object]) -> list[str]:
    c = Console(record=True, width=width, file=io.StringIO(), force_terminal=False)
    view = TurnView(c, lambda: 0, spinner=False)
    for obj in events:
        view.on_tool(obj)
    return c.export_text().splitlines()


def test_a_call_of_wide_characters_fits_the_width() -> None:
    for command in (CHINESE, EMOJI):
        for width in (60, 80):
            line = tool_lines.call_line({"tool": "bash", "args": {"command": command}}, width)
            assert cell_len(line) <= width and line.endswith("…)"), (width, line)
            assert cell_len(line) >= width - 2, (width, line)  # cut at the width, not at half of it
            shown = rows(width, {"type": "tool_call", "id": "1", "tool": "bash", "args": {"command": command}})
            assert len(shown) == 1 and cell_len(shown[0]) <= width, shown


def test_a_result_of_wide_characters_fits_the_width() -> None:
    summary = "文件未找到：请确认路径是否正确，以及该文件是否已被删除或者移动到了其他的目录中去了"
    call = {"type": "tool_call", "id": "1", "tool": "read_file", "args": {"path": "文档/说明/安装指南与常见问题解答.md"}}
    other = {"type": "tool_call", "id": "2", "tool": "bash", "args": {"command": "ls"}}
    result = {"type": "tool_result", "id": "1", "tool": "read_file", "error": True, "summary": summary}
    for width in (60, 80):
        line = tool_lines.result_line(result, width)
        assert cell_len(line) <= width and line.endswith("…"), (width, line)
        shown = rows(width, call, other, result)  # not under its call: it names the call first
        assert len(shown) == 3 and all(cell_len(row) <= width for row in shown), shown
        assert shown[2].startswith("  ⎿ read_file(文档/说明/"), shown


def test_ascii_is_cut_where_it_was() -> None:
    line = tool_lines.call_line({"tool": "bash", "args": {"command": "x" * 200}}, 60)
    assert line == "● bash(" + "x" * 51 + "…)"
