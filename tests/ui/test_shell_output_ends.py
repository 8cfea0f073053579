"""A long `!cmd` output shows its two ends in the terminal, each cut at a line's end: cut at a
character, `!seq 1 5000` showed `22`, the marker, then `03` (one number, 2203, in two halves), and
the marker counted characters only. It now says the lines left out too."""

from __future__ import annotations

import io

from rich.console import Console

from compact_agent.ui.shell_escape import SHOWN_MAX_CHARS, show_shell_output


def shown(out: str) -> list[str]:
    c = Console(record=True, width=100, file=io.StringIO())
    show_shell_output(c, "cmd", out)
    return c.export_text().splitlines()


def test_the_ends_are_whole_lines_and_the_marker_counts_them():
    numbers = [str(i) for i in range(1, 5001)]
    lines = shown("".join(f"{n}\n" for n in numbers))
    [at] = [i for i, line in enumerate(lines) if "not shown here" in line]
    head, tail = lines[:at], [line for line in lines[at + 1:] if line.isdigit()]
    assert head == numbers[:len(head)] and tail == numbers[-len(tail):], (head[-2:], tail[:2])
    left = len(numbers) - len(head) - len(tail)
    assert lines[at] == f"[… {sum(len(n) + 1 for n in numbers[len(head):-len(tail)]):,} characters not shown here: " \
        f"{left:,} lines …]"
    assert sum(len(line) + 1 for line in head + tail) <= SHOWN_MAX_CHARS


def test_one_line_longer_than_the_ends_is_cut_where_it_must_be():
    lines = shown("y" * 50_000)
    assert "[… 30,000 characters not shown here …]" in lines
