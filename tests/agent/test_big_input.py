"""Piped input too large for a request is saved whole and sent as its two ends (big_input.py)."""

from __future__ import annotations

from datetime import datetime
from pathlib import Path

from compact_agent.agent.run.big_input import fit_input

NOW = datetime(2026, 12, 2, 9, 30)


def test_input_that_fits_is_sent_as_it_is(tmp_path: Path) -> None:
    prompt = "explain\n\n" + "a line of log\n" * 100
    assert fit_input(prompt, "explain", 24_000, tmp_path, NOW) == (prompt, None)
    assert not (tmp_path / "tool-results").exists()


def test_one_huge_line_is_cut_at_both_ends_and_saved_whole(tmp_path: Path) -> None:
    """A base64 blob has no line to cut at: the ends are cut by characters. The room is half the
    threshold (12,000 tokens of 24,000); each end shows a quarter of it, 3,000 tokens or 12,000
    characters."""
    blob = "".join(chr(65 + i % 26) for i in range(400_000))
    sent, saved = fit_input(blob, "", 24_000, tmp_path, NOW)
    assert saved == tmp_path / "tool-results" / "input-20261202-093000-000000.txt"
    assert saved.read_text() == blob and oct(saved.stat().st_mode & 0o777) == "0o600"
    assert sent.startswith("[The input given with this message is 400,000 characters (1 line), more than")
    head, _, tail = sent.partition("]\n")[2].partition("\n[… 0 lines not shown here …]\n")
    assert head == blob[:12_000] and tail == blob[-12_000:]


def test_lines_are_kept_whole_and_the_typed_words_first(tmp_path: Path) -> None:
    log = "".join(f"line {i}\n" for i in range(50_000))
    sent, saved = fit_input(f"why?\n\n{log}", "why?", 8_000, tmp_path, NOW)
    assert saved is not None and saved.read_text() == log
    typed, framed = sent.split("\n\n", 1)
    assert typed == "why?" and "(50,000 lines)" in framed
    body = framed.partition("]\n")[2]
    head, _, tail = body.partition("\n[… ")
    assert head.startswith("line 0\nline 1\n") and all(x.startswith("line ") for x in head.splitlines())
    assert tail.endswith("line 49999") and len(head) <= 4_000 and len(tail.partition("…]\n")[2]) <= 4_000
    shown = len(head.splitlines()) + len(tail.partition("…]\n")[2].splitlines())
    assert f"{50_000 - shown:,} lines not shown here" in body


def test_a_paste_goes_whole_to_the_file_and_a_commands_output_leaves_the_typed_words(tmp_path: Path) -> None:
    """In the REPL the typed line comes after the output of earlier `!cmd`s: that output is the
    input, the line goes whole. A typed line too large by itself (a paste) is the input."""
    out = "".join(f"out {i}\n" for i in range(40_000)) + "what failed? is not in the log\n"
    sent, saved = fit_input(f"{out}\n\nwhat failed?", "what failed?", 8_000, tmp_path, NOW)
    assert saved is not None and saved.read_text() == out.rstrip("\n")
    assert sent.startswith("what failed?\n\n[The input given with this message is")
    paste = "".join(f"pasted {i}\n" for i in range(40_000))
    sent, saved = fit_input(paste, paste, 8_000, tmp_path, datetime(2026, 12, 2, 9, 31))
    assert saved is not None and saved.read_text() == paste
    assert sent.startswith("[The input given with this message is") and "pasted 0\n" in sent
