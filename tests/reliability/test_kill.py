"""Kill anywhere, lose nothing: SIGKILL a real session at crash points inside every durable write.

Two chains of real processes against the fake provider (small window, so spills, notes, collapse
commits and compactions all happen). Each run is stopped at one moment — a named crash point in
the archive copy, the atomic rewrite, a spill, a notes write, a collapse commit-log append, a torn
session append, or a random instant — the disk is recorded, the process SIGKILLed, and the next run
resumes the killed session (as a user would) until the next kill. The processes are real, forked
from one pre-imported zygote, so the chains cost seconds, not a start-up per run. After every kill the session
loads as a valid conversation and every message that was on disk at any kill is still in the
session or an archive; at the end `--continue` finishes the task with the right answer and no temp
file is left. See `harness.py`; benchmarks/kill_soak.py runs 100 random single kills.
"""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor

import pytest

from .harness import KillResult, Zygote, kill_chain

CHAINS: dict[str, dict[str, list[dict[str, object]]]] = {
    "task": {
        "steps": [
            {"point": "append.partial", "nth": 4},  # a session line torn in half
            {"point": "archive.partial", "nth": 1},  # half of the archive copy written
            {"point": "rewrite.synced", "nth": 1},  # the new session complete in its temp file, not renamed
            {"point": "spill.partial", "nth": 1},  # half of a spilled tool result
            {"point": "notes.partial", "nth": 1},  # half of the session notes
        ],
    },
    "turns": {
        "steps": [
            {"point": "collapse.partial", "nth": 1},  # half a collapse commit-log line
            {"delay": 1.0, "retries": 3},  # whatever it is doing 1 s in (0.5 s, ... if the run is faster)
        ],
    },
}


@pytest.fixture(scope="module")
def results(tmp_path_factory: pytest.TempPathFactory, zygote: Zygote) -> dict[str, KillResult]:
    """Both chains at once; runs are forked from one pre-imported zygote (see harness.py)."""

    roots = {name: tmp_path_factory.mktemp(name) for name in CHAINS}  # not from two threads at once

    def one(name: str) -> list[KillResult]:
        return kill_chain(zygote, roots[name], CHAINS[name]["steps"], scenario=name)

    with ThreadPoolExecutor(max_workers=2) as pool:
        done = [r for rs in pool.map(one, CHAINS) for r in rs]
    return {r.label: r for r in done}


def test_every_run_was_killed_where_intended_and_nothing_was_lost(results: dict[str, KillResult]) -> None:
    report = {label: (r.killed, len(r.lost), r.problems) for label, r in results.items()}
    assert all(r.killed for r in results.values()), [label for label, r in results.items() if not r.killed]
    assert all(not r.lost for r in results.values()), report
    assert all(not r.problems for r in results.values()), {k: r.problems for k, r in results.items() if r.problems}
    assert all(r.saved_at_kill for label, r in results.items() if "append" not in label)


def test_an_interrupted_write_left_a_temp_file_that_the_next_run_removed(results: dict[str, KillResult]) -> None:
    r = results["task/rewrite.synced:1"]
    assert r.temps_after_kill >= 1  # the crash really happened between temp file and rename
    assert all(x.ok for x in results.values())  # ... and the next runs cleaned up (checked at the end)
