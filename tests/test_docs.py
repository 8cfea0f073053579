"""docs/library.md: its complete example runs, offline, and prints what the page says it prints."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

DOC = Path(__file__).resolve().parents[1] / "docs" / "library.md"


def blocks(lang: str) -> list[str]:
    """Fenced blocks of `lang` (a block tagged `python skip` is an excerpt, not a program)."""
    return re.findall(rf"^```{lang}\n(.*?)^```$", DOC.read_text(encoding="utf-8"), re.S | re.M)


def test_the_library_example_runs_offline_and_prints_what_the_page_shows(tmp_path: Path) -> None:
    (program,), (shown,) = blocks("python"), blocks("text")
    env = {k: v for k, v in os.environ.items() if not k.startswith("COMPACT_AGENT_")}
    env["HOME"] = str(tmp_path)
    proc = subprocess.run([sys.executable, "-c", program], cwd=tmp_path, env=env, capture_output=True, text=True,
                          timeout=300)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout == shown
    assert list(tmp_path.iterdir()) == []  # nothing written, home and working directory included


def test_the_excerpts_name_only_what_the_library_exports() -> None:
    import compact_agent.context as lib

    names = set(re.findall(r"from compact_agent\.context import ([\w, ]+)", DOC.read_text(encoding="utf-8")))
    imported = {n.strip() for group in names for n in group.split(",")}
    assert imported and imported <= set(lib.__all__)
