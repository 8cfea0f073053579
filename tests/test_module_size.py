"""Each module of the package stays at most 400 lines (README.md, "Rules of the house": one layer in
its own file, read from its docstring): past it, a module holds more than one thing, and the part that
grew belongs in a module of its own, named in docs/layout.md."""

from __future__ import annotations

from pathlib import Path

import compact_agent

ROOT = Path(compact_agent.__file__).resolve().parent
README = ROOT.parents[1] / "README.md"
MOST = 400


def test_no_module_is_longer_than_400_lines() -> None:
    long = {str(f.relative_to(ROOT)): n for f in sorted(ROOT.rglob("*.py"))
            if (n := len(f.read_text(encoding="utf-8").splitlines())) > MOST}
    assert not long, long


def test_the_readme_states_the_rule() -> None:
    rules = README.read_text(encoding="utf-8").partition("Rules of the house:")[2].partition("\n\n")[0]
    # Of the package: the tests' modules are not held to it (tests/context/test_library.py is longer).
    said = f"A module of the package (`src/compact_agent/`) stays at most {MOST} lines (`tests/test_module_size.py`)"
    assert said in " ".join(rules.split()), (
        f"README.md's 'Rules of the house' list no longer states the {MOST}-line rule this test holds")
