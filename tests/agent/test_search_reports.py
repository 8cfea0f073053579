"""What grep and glob report, and what it costs: a file named once, not at each of its lines; a
long line one match with its length; a stop said as what stopped it, where, in the working
directory's names; a symlinked folder not followed said; a run of lines searched at once finds
what a line alone holds."""

from __future__ import annotations

from pathlib import Path

import pytest

from compact_agent.agent.run.stream_events import result_summary
from compact_agent.agent.tools import search
from compact_agent.agent.tools.base import ToolEnv
from compact_agent.agent.tools.search import glob_impl, grep_impl

from .test_search_bounds import ticking  # the env fixture: tests/agent/conftest.py


def test_a_file_is_named_once_not_at_each_line(env: ToolEnv, monkeypatch: pytest.MonkeyPatch) -> None:
    """Naming a file resolved the working directory, and grep named the file at each line it read
    to check its time bound: 8.4 s of a 10 s search of 7,300 files, which stopped with no match.
    The resolutions are counted: a few per search, not one per line."""
    (env.cwd / "big.py").write_text("x = 1\n" * 20_000 + "needle\n")
    (env.cwd / "small.py").write_text("y\n" * 500)
    resolved = 0
    real = Path.resolve

    def counting(self: Path, strict: bool = False) -> Path:
        nonlocal resolved
        resolved += 1
        return real(self, strict=strict)

    monkeypatch.setattr(Path, "resolve", counting)
    assert grep_impl(env, "needle") == "big.py:20001:needle"
    assert resolved < 20, resolved


def test_a_literal_whose_search_time_ran_out_is_not_blamed_for_backtracking(env: ToolEnv) -> None:
    """The search's time ran out while a line was searched: the pattern's timeout there was what was
    left of the 10 s (1e-7 s), and `needle` was told it backtracks exponentially, in `1e-07 s`."""
    (env.cwd / "a.txt").write_text("x" * 200_000 + "\n")
    reads = iter([0.0])
    out = grep_impl(env, "needle", clock=lambda: next(reads, 10.0 - 1e-7))
    assert out == ("[grep stopped after 10 s at a.txt:1; the matches above are the ones found so far: "
                   "narrow the path or the glob]")


def test_a_pattern_that_backtracks_is_said_in_plain_seconds(env: ToolEnv, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(search, "LINE_TIME_S", 0.25)
    (env.cwd / "a.txt").write_text("a" * 40 + "b\n")
    out = grep_impl(env, r"(a|aa)+$")
    assert out.startswith("[grep stopped: the pattern took over 0.25 s on a.txt:1; nested repetition"), out


def test_a_search_stopped_in_the_walk_names_the_place_from_the_working_directory(env: ToolEnv) -> None:
    (env.cwd / "sub" / "deeper").mkdir(parents=True)
    for i in range(60):
        (env.cwd / "sub" / "deeper" / f"f{i:03d}.txt").write_text("")
    for out in (grep_impl(env, "needle", "sub", clock=ticking(0.5)), glob_impl(env, "*/*.txt", "sub", clock=ticking(0.5))):
        last = out.splitlines()[-1]
        assert "stopped after 10 s at sub/deeper" in last, out


def test_a_line_longer_than_a_piece_is_one_match_with_its_length(env: ToolEnv, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(search, "LINE_MAX_BYTES", 1_000)
    (env.cwd / "min.js").write_text(("needle" + "y" * 994) * 5 + "tail\nneedle short\n")
    out = grep_impl(env, "needle").splitlines()
    assert len(out) == 2, out
    assert out[0].startswith("min.js:1:[match at column 1 of 5,004] needle"), out[0][:80]
    assert out[0].endswith("y…") and out[1] == "min.js:2:needle short"


def test_a_long_line_at_the_end_of_a_file_without_a_line_break(env: ToolEnv, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(search, "LINE_MAX_BYTES", 1_000)
    (env.cwd / "min.js").write_text("y" * 1_500 + "needle" + "y" * 494)  # 2,000 characters: two full pieces
    assert grep_impl(env, "needle").startswith("min.js:1:[match at column 1,501 of 2,000] …")


def test_a_symlinked_folder_not_followed_is_said(env: ToolEnv) -> None:
    (env.cwd / "real").mkdir()
    (env.cwd / "real" / "x.txt").write_text("needle\n")
    (env.cwd / "sub").mkdir()
    (env.cwd / "sub" / "link").symlink_to(env.cwd / "real")
    note = "[1 symlinked folder not followed: sub/link/; give one as the path to search where it leads]"
    assert grep_impl(env, "needle", "sub").splitlines() == ["No matches for 'needle' in sub", note]
    assert glob_impl(env, "**/*.txt", "sub").splitlines() == ["No files match '**/*.txt' under sub", note]
    assert grep_impl(env, "needle", "sub/link") == "real/x.txt:1:needle"


@pytest.mark.parametrize(("pattern", "text", "line"), [
    (r"\Aneedle", "a\nneedle\n", 2),  # the string's start is each line's
    (r"(?<!\n)needle", "a\nneedle\n", 2),  # nothing before a line's start, in the line alone
    (r"(?-m:^)needle", "a\nneedle\n", 2),
    (r"^needle$", "a\nneedle\nb\n", 2),
])
def test_lines_searched_at_once_find_what_a_line_alone_holds(env: ToolEnv, monkeypatch: pytest.MonkeyPatch,
                                                            pattern: str, text: str, line: int) -> None:
    monkeypatch.setattr(search, "BLOCK_CHARS", 4)
    (env.cwd / "a.txt").write_text(text * 3)
    assert grep_impl(env, pattern).splitlines()[0] == f"a.txt:{line}:needle"


def test_a_match_across_lines_in_a_run_is_no_match(env: ToolEnv, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(search, "BLOCK_CHARS", 1_000)
    (env.cwd / "a.txt").write_text("a\nb\n" * 10 + "a b\n")
    assert grep_impl(env, r"a\sb") == "a.txt:21:a b"


@pytest.mark.parametrize(("result", "summary"), [
    ("[grep stopped after 10 s at src/a.py:3; the matches above are the ones found so far: narrow the path or the glob]",
     "0 matches (stopped after 10 s; search not finished)"),
    ("a.py:1:x\n[grep interrupted at a.py:2; the matches above are the ones found so far: narrow the path or the glob]",
     "1 match (interrupted; search not finished)"),
    ("a.py:1:x\n[not UTF-8: the lines above are read in each file's encoding, which edits keep: a.py (GBK)]\n"
     "2 entries hidden by deny_paths, not searched", "1 match"),
    ("a.py:1:x\n[stopped at 200 matches; narrow the pattern or path]", "1 match (stopped: more not listed)"),
])
def test_a_grep_summary_says_why_it_stopped(result: str, summary: str) -> None:
    assert result_summary("grep", result, False) == summary
