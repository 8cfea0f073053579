"""How long grep and glob take over a project: a pattern found nowhere (every line is read), a
common word (stops at the match cap) and `**/*.py`.

Builds a project of its own (3,000 Python files of 150 lines, and inside a git work tree a
`.gitignore`d `build/` of 5,000 generated files and a 20 MB log, which are skipped), or searches
the folder given. Prints wall and CPU seconds for each (the bound is 10 s: a search that reaches
it says so). Target: the project built here, each under 1 s of CPU.
Run: .venv/bin/python benchmarks/search_speed.py [FOLDER]
"""

from __future__ import annotations

import sys
import tempfile
import time
from pathlib import Path

from compact_agent.agent.safety.permissions import Permissions
from compact_agent.agent.tools.base import ToolEnv
from compact_agent.agent.tools.file_state import ReadFileState
from compact_agent.agent.tools.search import glob_impl, grep_impl
from compact_agent.config import Settings

LINE = "    def handler_{i}(self, request, *args):  # handles the request and returns a response\n"


def build(root: Path) -> None:
    (root / ".git").mkdir()
    (root / ".gitignore").write_text("build/\n*.log\n")
    for d in range(30):
        pkg = root / "src" / f"pkg{d:02d}"
        pkg.mkdir(parents=True)
        for f in range(100):
            (pkg / f"mod{f:03d}.py").write_text("".join(LINE.format(i=i) for i in range(150)))
    (root / "build").mkdir()
    for f in range(5_000):
        (root / "build" / f"gen{f:04d}.py").write_text(LINE.format(i=f) * 20)
    (root / "app.log").write_text("GET /index.html 200\n" * 1_000_000)


def timed(label: str, run) -> None:  # type: ignore[no-untyped-def]
    wall, cpu = time.perf_counter(), time.process_time()
    out = run()
    wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
    last = out.splitlines()[-1] if out else ""
    print(f"{label:<32} {wall:6.2f} s wall {cpu:6.2f} s CPU   {len(out.splitlines()):>4} lines; last: {last[:90]}")


def main() -> None:
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(sys.argv[1]).resolve() if len(sys.argv) > 1 else Path(tmp)
        if len(sys.argv) == 1:
            build(root)
        env = ToolEnv(root, Settings(), ReadFileState(), Permissions(root, "yes"))
        timed("grep a word found nowhere", lambda: grep_impl(env, "ZZ_NOT_ANYWHERE_QQ"))
        timed("grep a regex found nowhere", lambda: grep_impl(env, r"def \w+_zz\("))
        timed("grep a common word", lambda: grep_impl(env, "request"))
        timed("glob **/*.py", lambda: glob_impl(env, "**/*.py"))


if __name__ == "__main__":
    main()
