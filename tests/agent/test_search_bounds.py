"""grep and glob: the walk is iterative, bounded in time, stops on interrupt, and returns what it
found so far with a note; a huge line is read in pieces."""

from __future__ import annotations

import inspect
import itertools
import os
import sys
import threading
from pathlib import Path

import pytest

from compact_agent.agent.safety.permissions import Permissions
from compact_agent.agent.tools import search
from compact_agent.agent.tools.base import ToolEnv
from compact_agent.agent.tools.file_state import ReadFileState
from compact_agent.agent.tools.search import glob_impl, grep_impl
from compact_agent.config import Settings


@pytest.fixture
def env(tmp_path: Path) -> ToolEnv:
    cwd = tmp_path / "work"
    cwd.mkdir()
    return ToolEnv(cwd, Settings(), ReadFileState(), Permissions(cwd, "yes"))


def ticking(step: float):
    """A clock that moves `step` seconds each time it is read (no real waiting)."""
    counter = itertools.count()
    return lambda: next(counter) * step


def test_a_tree_deeper_than_the_recursion_limit_is_walked(env: ToolEnv) -> None:
    # The tree is 400 levels deep and the recursion limit is lowered to 150 frames above this one for
    # the walk: a recursive walk fails, ours does not. Kept well under Python's own limit so that a run
    # killed before the clean-up leaves a tree pytest's recursive rmtree of old basetemps can remove.
    deep = str(env.cwd)
    limit = sys.getrecursionlimit()
    try:
        for _ in range(400):  # made one level at a time: os.makedirs and Path.mkdir recurse
            deep += "/d"
            os.mkdir(deep)
        Path(deep, "x.txt").write_text("needle\n")
        sys.setrecursionlimit(len(inspect.stack(0)) + 150)
        try:
            found = grep_impl(env, "needle")
            globbed = glob_impl(env, "**/*.txt")
        finally:
            sys.setrecursionlimit(limit)
        assert found.startswith("d/d/") and found.endswith("x.txt:1:needle"), found[-200:]
        assert globbed.endswith("/x.txt"), globbed[-200:]
        with pytest.raises(RecursionError):  # the depth does defeat a recursive walk at that limit
            sys.setrecursionlimit(len(inspect.stack(0)) + 150)
            try:
                sum(1 for _ in _recursive_walk(str(env.cwd)))
            finally:
                sys.setrecursionlimit(limit)
    finally:
        Path(deep, "x.txt").unlink(missing_ok=True)
        while deep != str(env.cwd):  # taken down one level at a time, without recursion
            os.rmdir(deep)
            deep = os.path.dirname(deep)


def _recursive_walk(top: str):
    for entry in os.scandir(top):
        yield entry.path
        if entry.is_dir(follow_symlinks=False):
            yield from _recursive_walk(entry.path)


def test_empty_files_cannot_outlast_the_time_bound(env: ToolEnv) -> None:
    for i in range(60):
        (env.cwd / f"f{i:03d}.txt").write_text("")
    (env.cwd / "a_hit.txt").write_text("needle\n")
    out = grep_impl(env, "needle", clock=ticking(0.5))  # 10 s are over after ~20 readings of the clock
    assert out.splitlines()[0] == "a_hit.txt:1:needle"
    assert "stopped after 10 s" in out.splitlines()[-1] and "found so far" in out
    out = glob_impl(env, "*.txt", clock=ticking(0.5))
    assert "[glob stopped after 10 s" in out.splitlines()[-1]


def test_an_interrupted_search_stops_at_once_with_what_it_has(env: ToolEnv) -> None:
    for i in range(50):
        (env.cwd / f"f{i:03d}.txt").write_text("")
    stop = threading.Event()
    stop.set()
    assert "[grep interrupted at" in grep_impl(env, "needle", stop=stop)
    assert "[glob interrupted at" in glob_impl(env, "*.txt", stop=stop)


def test_a_huge_line_is_searched_in_pieces(env: ToolEnv, monkeypatch) -> None:
    monkeypatch.setattr(search, "LINE_MAX_BYTES", 1_000)
    (env.cwd / "one_line.txt").write_text("x" * 10_000 + "needle" + "y" * 10_000 + "\nneedle again\n")
    seen: list[int] = []
    real = search._lines

    def spy(fh):
        for n, at, piece in real(fh):
            seen.append(len(piece))
            yield n, at, piece

    monkeypatch.setattr(search, "_lines", spy)
    out = grep_impl(env, "needle")
    assert "one_line.txt:2:needle again" in out and max(seen) <= 1_000
    # the piece holding the match starts with it, at column 10,001; the line goes on past the piece,
    # and its length is the whole line's, read to its end
    first = out.splitlines()[0]
    assert first.startswith("one_line.txt:1:[match at column 10,001 of 20,006] …needleyyy")
    assert first.endswith("y…") and len(first) < 520
    assert os.path.getsize(env.cwd / "one_line.txt") > 20_000


def test_a_match_in_the_last_piece_of_a_huge_line_has_its_column_and_the_lines_length(
        env: ToolEnv, monkeypatch) -> None:
    monkeypatch.setattr(search, "LINE_MAX_BYTES", 1_000)
    (env.cwd / "one_line.txt").write_text("é" * 2_500 + "needle" + "y" * 100 + "\r\n")
    out = grep_impl(env, "needle")
    # the window is the piece's end: 500 characters after the path, the match and what precedes it
    assert out == "one_line.txt:1:[match at column 2,501 of 2,606] …" + "é" * 361 + "needle" + "y" * 100


def test_a_glob_whose_braces_stand_for_too_many_patterns_is_refused_in_one_line(env: ToolEnv) -> None:
    """Each {a,b} doubled the patterns a glob stood for, and all were made and compiled before the
    walk's time bound was looked at: twenty of them were a million patterns, minutes of a worker
    thread no interrupt could stop, and memory. Past MAX_GLOB_PATTERNS the glob is refused."""
    (env.cwd / "ab.txt").write_text("x\n")
    wide = "{a,b}" * 9  # 512 patterns
    for out in (glob_impl(env, wide), grep_impl(env, "x", glob=wide)):
        assert str(out).startswith(f"the glob '{wide}' stands for more than 256 patterns"), out
        assert "\n" not in str(out)
    assert glob_impl(env, "{a,b}" * 8 + ".txt").startswith("No files")  # 256: still searched
    assert glob_impl(env, "{a,x}{b,y}.txt") == "ab.txt"


def test_a_glob_that_backtracks_on_a_long_name_ends_at_once(tmp_path: Path) -> None:
    """A repository may hold a file named by 200 a's: '*a*a*a*a*a*a*a*ab' tried every way to split the
    name (Python's re, holding the interpreter the whole time: the turn could not even be stopped) and
    glob and grep ran for hours. Matched by the regex engine, under a time bound per name, it ends at
    once. Run apart, so a search that never ends fails the test instead of holding the suite."""
    import subprocess

    cwd = tmp_path / "work"
    cwd.mkdir()
    (cwd / ("a" * 200)).write_text("x\n")
    program = ("import sys; from pathlib import Path\n"
               "from compact_agent.agent.safety.permissions import Permissions\n"
               "from compact_agent.agent.tools.base import ToolEnv\n"
               "from compact_agent.agent.tools.file_state import ReadFileState\n"
               "from compact_agent.agent.tools.search import glob_impl, grep_impl\n"
               "from compact_agent.config import Settings\n"
               "cwd = Path(sys.argv[1]); env = ToolEnv(cwd, Settings(), ReadFileState(), Permissions(cwd, 'yes'))\n"
               "print(glob_impl(env, '*a' * 8 + 'b')); print(grep_impl(env, 'x', glob='*a' * 8 + 'b'))\n")
    try:
        run = subprocess.run([sys.executable, "-c", program, str(cwd)], capture_output=True, text=True, timeout=60)
    except subprocess.TimeoutExpired:
        pytest.fail("the glob was still matching one name after 60 s")
    assert run.returncode == 0, run.stderr
    assert run.stdout.splitlines() == ["No files match '*a*a*a*a*a*a*a*ab' under .",
                                       "No matches for 'x' in . (files matching *a*a*a*a*a*a*a*ab)"]


def test_a_name_that_takes_too_long_to_match_stops_the_search_with_a_note(env: ToolEnv, monkeypatch) -> None:
    """A name over MATCH_TIME_S ends the search with what it found and a line saying why, as the
    walk's own bound does (the engine's timeout stood in for here)."""
    for name in ("a.txt", "b.txt", "c.txt"):
        (env.cwd / name).write_text("x\n")
    translate = search._glob_regex

    class Slow:
        def __init__(self, pattern: str) -> None:
            self.compiled = translate(pattern)

        def fullmatch(self, rel: str, timeout: float | None = None):
            if rel.startswith("b"):
                assert timeout == search.MATCH_TIME_S
                raise TimeoutError("regex timed out")
            return self.compiled.fullmatch(rel, timeout=timeout)

    monkeypatch.setattr(search, "_glob_regex", Slow)
    out = glob_impl(env, "*.txt")
    assert out.splitlines()[0] == "a.txt" and len(out.splitlines()) == 2, out
    assert out.splitlines()[1].startswith("[glob stopped: the glob '*.txt' took over 1 s to match b.txt;"), out
    found = grep_impl(env, "x", glob="*.txt")
    assert found.splitlines()[0] == "a.txt:1:x" and "[grep stopped: the glob '*.txt' took over 1 s to match b.txt" in found
