"""grep searches a run of lines at once only where that finds every line a line-by-line search
finds (grep_runs.py): a property test against a search of each line alone, the cases it found,
and a run's search that runs out of time is not tried again in that search."""

from __future__ import annotations

import functools
import io
import tempfile
from pathlib import Path

import pytest
import regex
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from compact_agent.agent.safety.permissions import Permissions
from compact_agent.agent.tools import grep_runs, search
from compact_agent.agent.tools.base import ToolEnv
from compact_agent.agent.tools.file_state import ReadFileState
from compact_agent.agent.tools.grep_runs import run_safe
from compact_agent.agent.tools.search import grep_impl
from compact_agent.config import Settings

ATOMS = ["a", "b", " ", "\\n", "\n", "\\s", "\\S", "\\w", "\\W", "\\d", "\\D", "[^a]", "[ab]", "[ -~]", "[\\n]",
         "[\\x00-z]", "\\x0a", ".", "$", "^", "\\b", "\\B", "\\A", "\\Z", "\\z", "(?s)", "(?m)", "(?i)", "(?-i:a)",
         "A", "é", "e\u0301", "x*", "a+?", "a{1,2}", "a*+", "(?>a\\s*)", "(?:a|b)+", "(a)\\1", "\\$", "{", "}",
         "(?=b)", "(?=\\n)", "(?<=a)", "(?<=\\n)", "(?!a)", "(?!\\s*b)", "(?<!a)", "(?<!\\n)", "\\p{Cc}", "|"]
PATTERNS = st.recursive(st.sampled_from(ATOMS),
                        lambda inner: st.one_of(st.lists(inner, min_size=2, max_size=4).map("".join),
                                                inner.map(lambda p: f"(?:{p})"), inner.map(lambda p: f"({p})*"),
                                                inner.map(lambda p: f"(?={p})"), inner.map(lambda p: f"(?<={p})")),
                        max_leaves=6)
TEXTS = st.lists(st.sampled_from(["a", "b", "A", " ", "\n", "\n", "\r\n", "\r", "x", "é", "e\u0301", ";"]),
                 max_size=24).map("".join)


def line_by_line(pattern: str, text: str) -> list[int]:
    """The lines a search of each line alone finds the pattern in (its pieces, as grep reads it, each
    without its line ending, as `grep -P` and ripgrep search a line)."""
    rx, composed = regex.compile(pattern), regex.compile(search.nfc(pattern))
    found = set()
    for n, _, piece in search._lines(io.TextIOWrapper(io.BytesIO(text.encode()), encoding="utf-8")):
        if search._search(rx, composed, piece.removesuffix("\n"), 1.0)[0]:
            found.add(n)
    return sorted(found)


@functools.cache
def settings_once() -> Settings:
    """The settings, read once for the property test's thousand examples: reading them (pydantic-
    settings' sources) cost 4 ms an example, four fifths of the test's time; grep reads none of them."""
    return Settings()


def grepped(root: Path, pattern: str) -> list[int]:
    out = grep_impl(ToolEnv(root, settings_once(), ReadFileState(), Permissions(root, "yes")), pattern, "f.txt")
    return [int(line.split(":")[1]) for line in out.splitlines() if line.startswith("f.txt:")]


@settings(max_examples=1000, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(PATTERNS, TEXTS, st.sampled_from([4, 12, 1 << 16]), st.sampled_from([3, 1 << 20]))
@example(r"return(?!\s*;)", "x\nreturn\n;\n", 1 << 16, 1 << 20)
@example(r"a(?!\nb)", "a\nb\n", 1 << 16, 1 << 20)
@example("a\\n$", "a\nb", 1 << 16, 1 << 20)
@example("\\n\\B", "a\nb", 1 << 16, 1 << 20)
@example("(?m)^$", "a\nb", 1 << 16, 1 << 20)
@example("a[^x]$", "a\nb", 1 << 16, 1 << 20)
@example("\\s+$", "clean line\nclean two\ntrailing space \n", 1 << 16, 1 << 20)  # the line ending is no blank
@example("\\s+$", "clean line\r\nclean two\r\ntrailing space \r\n", 1 << 16, 1 << 20)
@example("\\s+$", "clean line\rclean two\rtrailing space \r", 1 << 16, 1 << 20)
@example("[^a]", "a\naa\nab\n", 1 << 16, 1 << 20)
@example("[^a]", "a\r\naa\r\nab\r\n", 1 << 16, 1 << 20)
@example("[^a]", "a\raa\rab\r", 4, 1 << 20)
@example("^\\s*$", "x\n\ny\n", 1 << 16, 1 << 20)
@example("^\\s*$", "x\r\n\r\ny\r\n", 1 << 16, 1 << 20)
@example("^\\s*$", "x\r\ry\r", 1 << 16, 1 << 20)
@example("^b", "aaab\n", 1 << 16, 3)  # a line read in pieces: the second piece starts no line of the run
def test_grep_finds_the_lines_a_search_of_each_line_finds(pattern: str, text: str, block: int, piece: int) -> None:
    try:
        regex.compile(pattern)
    except (regex.error, ValueError):
        return
    with tempfile.TemporaryDirectory() as folder, pytest.MonkeyPatch.context() as mp:
        mp.setattr(search, "BLOCK_CHARS", block)
        mp.setattr(search, "LINE_MAX_BYTES", piece)
        (Path(folder) / "f.txt").write_bytes(text.encode())
        assert grepped(Path(folder), pattern) == line_by_line(pattern, text)


@pytest.mark.parametrize("pattern", ["needle", r"def \w+\(", r"^import \S+$", "[A-Z][a-z]+Error", r"\bfoo\b",
                                     r"(?i)todo:", r"a\s+b", "[^\"]*x", r"(?<=self\.)\w+", r"x{2,3}?y", r"\$HOME"])
def test_everyday_patterns_are_searched_a_run_at_once(pattern: str) -> None:
    assert run_safe(pattern)


@pytest.mark.parametrize("pattern", [r"return(?!\s*;)", r"a(?!\nb)", "a\\n$", r"\B", r"[^x]$", r"\s$", "(?m)^$",
                                     r"(?>a\s*)b", r"a++", r"\Aa", r"a\Z", r"(?s).$", r"[[:alpha:]]", r"a{e<=1}",
                                     r"(?(1)a|b)", r"(?x)a", r"\x0a$", r"\N{LINE FEED}", r"(?<!a)b"])
def test_patterns_a_run_could_hide_a_line_of_are_searched_line_by_line(pattern: str) -> None:
    assert not run_safe(pattern)


class _Slow:
    """A run's pattern that runs out of time on every search, counting them."""

    def __init__(self) -> None:
        self.searches = 0

    def search(self, text: str, timeout: float) -> None:
        self.searches += 1
        raise TimeoutError


def test_a_run_that_runs_out_of_time_ends_the_run_searches(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    slow = _Slow()
    monkeypatch.setattr(search, "BLOCK_CHARS", 100)
    monkeypatch.setattr(search, "across_lines", lambda *_: grep_runs.RunSearch(slow, slow))
    (tmp_path / "f.txt").write_text("word " * 10 + "\n" * 500 + "needle\n")
    (tmp_path / "g.txt").write_text("word\n" * 500)
    out = grep_impl(ToolEnv(tmp_path, Settings(), ReadFileState(), Permissions(tmp_path, "yes")), "needle")
    assert out == "f.txt:501:needle"
    assert slow.searches == 1


@pytest.mark.parametrize("end", ["\n", "\r\n", "\r"], ids=["LF", "CRLF", "CR"])
@pytest.mark.parametrize("pattern,text,lines", [
    (r"\s+$", "clean line{e}clean two{e}trailing space {e}", [3]),
    (r"\s$", "clean line{e}trailing space {e}", [2]),
    ("[^a]", "a{e}aa{e}ab{e}", [3]),
    ("[^a ]", "a{e}a a{e}ab{e}", [3]),
    (r"^\s*$", "x{e}{e}y{e}", [2]),
    (r"^\s+", "x{e}{e}  y{e}", [3]),
])
def test_a_line_is_searched_without_its_ending(tmp_path: Path, end: str, pattern: str, text: str,
                                               lines: list[int]) -> None:
    """The line break was searched as part of the line: `\\s+$` found every line, `[^a]` lines of `a`s."""
    (tmp_path / "f.txt").write_bytes(text.format(e=end).encode())
    assert grepped(tmp_path, pattern) == lines
