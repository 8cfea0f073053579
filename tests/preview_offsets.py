"""A check shared by the tests of saved input (agent) and spilled tool results (context)."""

from __future__ import annotations

import re
import subprocess


def assert_reads_on_after_the_head(preview: str, held: str) -> None:
    """The preview's head is the file's start, and its `tail -c +N … | head -c 4000` command, run
    as the model would run it, prints exactly the 4,000 characters after that head."""
    head = preview[:preview.index("\n\n[...")]
    assert held.startswith(head)
    found = re.search(r"`(tail -c \+(\d+) .+? \| head -c 4000)` for the next 4,000 bytes", preview)
    assert found is not None and int(found.group(2)) == len(head.encode()) + 1, preview[-400:]
    shown = subprocess.run(["bash", "-c", found.group(1)], capture_output=True, timeout=30, check=True).stdout
    assert shown.decode("utf-8") == held[len(head):len(head) + 4_000]
