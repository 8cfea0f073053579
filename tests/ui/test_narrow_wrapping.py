"""At 60 columns the approval question stays readable: a wrapped diff line goes on indented under
its own line, after a `↳` (it wrapped to column 0, where it read as a line outside the diff), and the menu
breaks between whole words and whole options (it wrapped as `(` / `a)`)."""

from __future__ import annotations

import io

from rich.console import Console

from compact_agent.ui.approval import INSTEAD_PROMPT, WAITING, instead_prompt, make_ask, menu_lines, nothing

DIFF = ("edit calc.py\n--- a/calc.py\n+++ b/calc.py\n@@ -1,3 +1,4 @@\n def divide(a, b):\n"
        "-    return a / b if b else None  # the old division that silently returned None for zero\n"
        "+    if b == 0:\n"
        "+        raise ZeroDivisionError('cannot divide ' + str(a) + ' by zero, the caller must check first')\n"
        "     return a / b")


def test_a_wrapped_diff_line_goes_on_indented_under_it():
    c = Console(record=True, width=60, file=io.StringIO(), force_terminal=False)
    make_ask(c, nothing, io.StringIO("y\n"))("edit_file", DIFF)
    out = c.export_text().splitlines()
    body = out[1:out.index(next(line for line in out if line.startswith("allow?")))]
    assert all(len(line) <= 60 for line in body), body
    assert all(line.startswith("    ") for line in body), body  # nothing at column 0
    markers = [line[4] for line in body if not line.startswith("    ↳ ")]  # each diff line's own first column
    assert markers == ["-", "+", "@", " ", "-", "+", "+", " "], body
    continued = [line for line in body if line.startswith("    ↳ ")]
    joined = " ".join(x[6:] if x.startswith("    ↳ ") else x.strip() for x in body)
    assert len(continued) >= 2 and "silently returned None for zero" in joined and "must check first')" in joined


def test_the_menu_breaks_between_words_and_the_key_line_between_items():
    for width in (60, 50):
        for tool in ("bash", "edit_file"):
            text = "".join(t for _, t in menu_lines(tool, 1, width))
            lines = text.split("\n")
            assert all(len(line) < width for line in lines), lines
            assert all(line.strip() not in ("(", "a)", "n)") for line in lines), lines
            assert "(a)" in text and "(n)" in text
            for line in lines[1:]:
                if not line.startswith("waiting") and line.strip() and line.lstrip()[0] not in "123❯":
                    assert line.startswith("      ") or any(line == part for part in WAITING.split(" · ")) or \
                        " · " in line or line in WAITING, lines
            waiting = [line for line in lines if line and (line.startswith("waiting") or line in WAITING)]
            assert " · ".join(waiting) == WAITING, lines  # the key line, broken only between its items


def test_a_long_command_is_shown_whole_before_it_is_approved():
    command = "echo " + "a" * 5000 + " && rm -rf build"
    c = Console(record=True, width=100, file=io.StringIO(), force_terminal=False)
    make_ask(c, nothing, io.StringIO("n\n"))("bash", command)
    shown = "".join(line[6:] if line.startswith("    ↳ ") else line[4:] for line in c.export_text().splitlines()
                    if line.startswith("    "))
    assert shown.count("a") == 5000 and shown.endswith("&& rm -rf build")  # the end of what would run, on the screen
    assert "…" not in shown


def test_a_long_diff_is_cut_at_a_line_saying_how_many_are_not_shown():
    diff = "create big.py (600 lines)\n--- big.py\n+++ big.py\n@@ -0,0 +1,600 @@\n" + "".join(
        f"+line {i}\n" for i in range(600))
    c = Console(record=True, width=100, file=io.StringIO(), force_terminal=False)
    make_ask(c, nothing, io.StringIO("n\n"))("write_file", diff)
    out = c.export_text().splitlines()
    last = next(i for i, line in enumerate(out) if "of the change not shown" in line)
    shown = [line.strip() for line in out[1:last]]
    assert all(line in diff.splitlines() for line in shown)  # whole lines, none cut in the middle
    assert out[last].strip() == f"… {603 - len(shown)} more lines of the change not shown"


def test_the_instead_question_breaks_between_words():
    for width in (40, 30):
        lines = instead_prompt(width).split("\n")
        assert len(lines) > 1 and all(len(line) < width for line in lines), lines
        assert " ".join(line.strip() for line in lines) == INSTEAD_PROMPT.strip()  # no word cut
        assert all(line.startswith("  ") for line in lines) and lines[-1].endswith("› ")
    assert instead_prompt(100) == INSTEAD_PROMPT  # one line where it fits, as before
