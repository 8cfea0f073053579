"""Write docs/library.md's programs (its ```python and ```python store blocks) into a folder, so
`make typecheck` checks them as a user's strict type checker would."""

from __future__ import annotations

import re
import sys
from pathlib import Path

DOC = Path(__file__).resolve().parents[1] / "docs" / "library.md"


def main(out: Path) -> None:
    out.mkdir(parents=True, exist_ok=True)
    programs = re.findall(r"^```python(?: store)?\n(.*?)^```$", DOC.read_text(encoding="utf-8"), re.S | re.M)
    for i, program in enumerate(programs):
        (out / f"library_md_{i}.py").write_text(program, encoding="utf-8")


if __name__ == "__main__":
    main(Path(sys.argv[1]))
