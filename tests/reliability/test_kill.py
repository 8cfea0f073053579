"""Kill anywhere, lose nothing: SIGKILL a real session at crash points inside every durable write.

Each case starts a real run against the fake provider (small window, so spills, collapse commits,
session-memory and full compactions all happen), stops it at one moment — a named crash point in
the archive copy, the atomic rewrite, a spill, a collapse commit-log append, a session append, or a
random instant — records what is on disk, SIGKILLs it, and checks: the session loads as a valid
conversation, every message that was on disk is still in the session or an archive, `--continue`
finishes the task with the right answer, and no temp file survives the next start. See
`harness.py`; benchmarks/kill_soak.py runs 100 random cases.
"""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

from .harness import KillResult, kill_and_check

CASES: list[dict[str, object]] = [
    # half of the archive copy written
    {"scenario": "task", "point": "archive.partial", "nth": 2, "via_cli": True},
    # the new session file complete but not renamed yet
    {"scenario": "task", "point": "rewrite.synced", "nth": 1, "via_cli": False},
    # half of a spilled tool result
    {"scenario": "task", "point": "spill.partial", "nth": 1, "via_cli": False},
    # a session line torn in half
    {"scenario": "task", "point": "append.partial", "nth": 6, "via_cli": False},
    # half a collapse commit-log line
    {"scenario": "turns", "point": "collapse.partial", "nth": 1, "via_cli": True},
    # whatever it is doing 2.5 seconds in
    {"scenario": "turns", "delay": 2.5, "via_cli": False},
]


@pytest.fixture(scope="module")
def results(tmp_path_factory: pytest.TempPathFactory) -> dict[str, KillResult]:
    """All cases, two at a time (each is two CLI processes and most of the time is start-up)."""

    def one(i: int) -> KillResult:
        root: Path = tmp_path_factory.mktemp(f"kill{i}")
        return kill_and_check(root, **CASES[i])  # type: ignore[arg-type]

    with ThreadPoolExecutor(max_workers=2) as pool:
        done = list(pool.map(one, range(len(CASES))))
    return {r.label: r for r in done}


def test_every_case_was_killed_and_lost_nothing(results: dict[str, KillResult]) -> None:
    report = {label: (r.killed, len(r.lost), r.problems) for label, r in results.items()}
    assert all(r.killed for r in results.values()), report
    assert all(not r.lost for r in results.values()), report
    assert all(not r.problems for r in results.values()), report


def test_the_interrupted_rewrite_left_a_temp_file_that_the_next_run_removed(results: dict[str, KillResult]) -> None:
    r = results["task/rewrite.synced:1"]
    assert r.temps_after_kill >= 1  # the crash really happened between temp file and rename
    assert r.ok  # ... and the next run cleaned it up (checked in the harness)
