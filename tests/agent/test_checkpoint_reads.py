"""The reads a checkpoint keeps (which a rewind gives back) are kept compressed, once per state:
a long session's turns each keep one, paths that repeat from turn to turn."""

from __future__ import annotations

import json
from pathlib import Path

from compact_agent.agent.tools.checkpoints import Checkpoints


def test_the_reads_come_back_as_kept_and_take_a_fraction_of_their_size(tmp_path: Path) -> None:
    files = [{"path": f"/home/me/project/src/module_{i:03d}.py", "mtime_ns": 1_700_000_000_000_000_000 + i,
              "partial": False, "offset": None, "limit": None, "time": 1.0, "sha256": f"{i:064x}"} for i in range(200)]
    reads = json.dumps({"version": 1, "files": files}).encode()
    cps = Checkpoints(tmp_path / "store")
    first, second = cps.begin(0, 0, "one", reads=reads), cps.begin(1, 2, "two", reads=reads)
    assert first.reads == second.reads  # one state, kept once
    assert cps.reads_at(1) == reads and Checkpoints(tmp_path / "store").reads_at(0) == reads
    [blob] = (tmp_path / "store" / "blobs").iterdir()
    assert blob.stat().st_size < len(reads) / 3, (blob.stat().st_size, len(reads))
