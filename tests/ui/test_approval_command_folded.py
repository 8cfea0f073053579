"""A long command under the permission question is on the screen whole, at 40 and at 80 columns:
each line four columns in, its continuations after `↳`, none wider than the terminal. A word longer
than a line is folded where it stands (moved whole to a line of its own, it left `echo` alone on the
first line, so the command read as its first word), and a line is measured in screen cells (a line
of Chinese text shorter in characters than the width went out unbroken, and the terminal wrapped it
at column 0). A control character is shown as its escape, as everywhere."""

from __future__ import annotations

import io

from rich.cells import cell_len
from rich.console import Console

from compact_agent.ui.approval import make_ask, nothing
from compact_agent.ui.render import SafeConsole

TOKEN = "https://example.com/" + "segment-" * 20 + "end"  # one word, longer than any line here
WIDE = "日本語の説明文がここに続きます"  # 15 characters, 30 cells


def shown(command: str, width: int) -> list[str]:
    """The lines under the question, as a terminal of `width` columns shows them."""
    console = SafeConsole(record=True, width=width, file=io.StringIO(), force_terminal=False)
    make_ask(console, nothing, io.StringIO("n\n"))("bash", command)
    out = console.export_text().splitlines()
    assert out[0] == "  ⎿ bash wants to run:", out
    return out[1:out.index(next(line for line in out if line.startswith("allow?")))]


def joined(lines: list[str]) -> str:
    return "".join(line[6:] if line.startswith("    ↳ ") else line[4:] for line in lines)


def check(lines: list[str], width: int) -> None:
    assert all(line.startswith("    ") and cell_len(line) <= width for line in lines), lines
    assert all(line.startswith("    ↳ ") for line in lines[1:]), lines  # each continuation marked


def test_a_long_word_starts_on_the_first_line() -> None:
    for width in (40, 80):
        lines = shown(f"curl -fsSL {TOKEN} -o out.html", width)
        check(lines, width)
        assert cell_len(lines[0]) == width - 2, lines  # the first line filled, not `curl -fsSL` alone
        assert TOKEN in joined(lines) and joined(lines).replace(" ", "") == f"curl-fsSL{TOKEN}-oout.html", lines
        assert lines[-1].endswith("out.html"), lines


def test_a_line_of_wide_characters_is_folded_by_its_cells() -> None:
    for width, command in ((40, f"echo {WIDE}"), (80, f"echo {WIDE * 2} {'x' * 20}")):
        assert len(command) < width - 6 < cell_len(command)  # fewer characters than a line, more cells
        lines = shown(command, width)
        check(lines, width)
        assert len(lines) >= 2 and joined(lines).replace(" ", "") == command.replace(" ", ""), lines


def test_words_that_fit_still_break_between_words_with_escapes_shown() -> None:
    command = "find . -name '*.py' -newer setup.cfg -exec grep -l TODO {} + | xargs wc -l | sort -n\x1b[2K"
    for width in (40, 80):
        lines = shown(command, width)
        check(lines, width)
        words = " ".join(line.removeprefix("    ↳ ").strip() for line in lines).split(" ")
        assert words == command.replace("\x1b", "\\x1b").split(" "), lines  # no word cut, the escape shown


def test_a_tab_is_counted_as_the_terminal_shows_it() -> None:
    command = "printf 'a\\tb'\t\t\t| sed -e s/a/b/\t\t| cat -A\t\t| head -n 40"
    for width in (40, 80):
        lines = shown(command, width)
        check(lines, width)
        assert " ".join(joined([line]) for line in lines).split() == command.split(), lines


def test_a_plain_console_folds_the_same() -> None:
    console = Console(record=True, width=40, file=io.StringIO(), force_terminal=False)
    make_ask(console, nothing, io.StringIO("n\n"))("bash", f"echo {TOKEN}")
    out = console.export_text().splitlines()
    assert out[1].startswith("    echo https://") and cell_len(out[1]) == 38, out
