"""Each module of the package stays at most 400 lines (ARCHITECTURE.md: one layer in its own file, read
from its docstring): past it, a module holds more than one thing, and the part that grew belongs in a
module of its own."""

from __future__ import annotations

from pathlib import Path

import compact_agent

ROOT = Path(compact_agent.__file__).resolve().parent
MOST = 400


def test_no_module_is_longer_than_400_lines() -> None:
    long = {str(f.relative_to(ROOT)): n for f in sorted(ROOT.rglob("*.py"))
            if (n := len(f.read_text(encoding="utf-8").splitlines())) > MOST}
    assert not long, long
