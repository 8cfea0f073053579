"""Every module of the package and every test module says in a docstring what it is about, and a
file a docstring sends the reader to is there.

A newcomer opens a module or a test file to learn what it holds: one that starts with imports
says nothing, and one that names a file moved since (the provider failures' test named retry.py
under agent/, since moved to agent/run/) sends them looking for it.
"""

from __future__ import annotations

import ast
import io
import re
import tokenize
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

#: A path a docstring names from the checkout or the package's folder: `src/compact_agent/cli.py`,
#: `compact_agent/agent/run/retry.py`, `tests/fakes/openai_server.py`. A path below a package's own
#: folder (`agent/run/retry.py` in the package) is left alone: where it starts is the reader's guess.
NAMED = re.compile(r"(?<![\w/.])((?:src/compact_agent|compact_agent|tests)/[\w/]+\.py)\b")


def modules() -> list[Path]:
    package = sorted((ROOT / "src" / "compact_agent").rglob("*.py"))
    tests = sorted(p for p in (ROOT / "tests").rglob("test_*.py"))
    return package + tests


def docstring(path: Path) -> str | None:
    """The module's docstring, as `ast.get_docstring` of the whole file gives it. A docstring is
    the first statement: the file's first logical line (with the comments and blank lines before
    it) is parsed alone where it parses (a statement that opens a block does not), not every file of
    the checkout whole twice (3.5 s of the two tests' 4). The file's syntax is ruff's to check."""
    text = path.read_text(encoding="utf-8")
    try:
        tokens = tokenize.generate_tokens(io.StringIO(text).readline)
        end = next(t.end for t in tokens if t.type in (tokenize.NEWLINE, tokenize.ENDMARKER))
        first = ast.parse("".join(text.splitlines(keepends=True)[:end[0]]))
    except (SyntaxError, tokenize.TokenError, StopIteration):
        first = ast.parse(text)
    return ast.get_docstring(first)


def named_paths(doc: str) -> list[str]:
    return NAMED.findall(doc)


def missing(named: str) -> bool:
    return not ((ROOT / named).is_file() or (ROOT / "src" / named).is_file())


def test_every_module_and_test_module_has_a_docstring() -> None:
    bare = [str(p.relative_to(ROOT)) for p in modules() if not docstring(p)]
    assert not bare, f"say in a docstring at the top what each is about: {', '.join(bare)}"


def test_the_files_docstrings_name_are_there() -> None:
    gone = [f"{p.relative_to(ROOT)}: {n}" for p in modules() for n in named_paths(docstring(p) or "") if missing(n)]
    assert not gone, "a docstring names a file that is not there (moved? name where it is now): " + "; ".join(gone)


def test_a_named_path_is_read_from_the_checkout_or_the_package_folder() -> None:
    doc = ("see compact_agent/agent/run/retry.py and src/compact_agent/cli.py, tests/fakes/openai_server.py, "
           "compact_agent/agent/retry.py; agent/run/retry.py and my_compact_agent/x.py are not read")
    assert named_paths(doc) == ["compact_agent/agent/run/retry.py", "src/compact_agent/cli.py",
                                "tests/fakes/openai_server.py", "compact_agent/agent/retry.py"]
    assert [missing(n) for n in named_paths(doc)] == [False, False, False, True]
