"""Waiting for a process to be gone, without a fixed sleep: a test polls until the condition
holds or a deadline passes."""

from __future__ import annotations

import os
import time
from pathlib import Path


def ended(pid: int, timeout: float = 10) -> bool:
    """Whether process `pid` is gone (or a zombie: dead, waiting for its parent) within `timeout`
    seconds. A process whose parent was killed is reaped by init, or by nobody in a container
    without one, hence the zombie."""
    deadline = time.monotonic() + timeout
    while True:
        try:
            os.kill(pid, 0)
            if Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0] == "Z":
                return True
        except (ProcessLookupError, FileNotFoundError):
            return True
        if time.monotonic() > deadline:
            return False
        time.sleep(0.01)
