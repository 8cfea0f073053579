"""The collapse log keeps the commits a compaction left, no more: `forget_absent` rewrites it.

Before, the commits a compaction dropped were dropped in memory only: the log kept every commit
the session ever made, and a restart read them all back and tried each on every request until the
next compaction (a 1,500-turn session's log grew with every one of its compactions). The messages
they folded are in the archives, whole."""

from __future__ import annotations

import json
import stat
from datetime import timedelta
from pathlib import Path

from compact_agent.config import Settings
from compact_agent.context.layers.collapse import ContextCollapse
from compact_agent.context.plumbing.tokens import estimate
from tests.context.strategies import BASE, dump
from tests.context.test_collapse import long_conv, run


def test_a_restart_reads_back_only_the_commits_a_compaction_left(tmp_path: Path) -> None:
    log_path = tmp_path / "collapse" / "commits.jsonl"
    layer = ContextCollapse(Settings(), log_path)
    before = long_conv()  # the conversation a compaction then replaced
    gone = run(layer, before.messages, estimate(before.messages)).events[0].detail["commit"]
    after = long_conv(start=BASE + timedelta(days=1))  # the one since: none of its messages is the same
    kept = run(layer, after.messages, estimate(after.messages))
    commit = kept.events[0].detail["commit"]
    assert [json.loads(line)["id"] for line in log_path.read_text().splitlines()] == [gone, commit]

    layer.forget_absent(after.messages)
    assert [c.id for c in layer.commits] == [commit]
    assert [json.loads(line)["id"] for line in log_path.read_text().splitlines()] == [commit]
    assert stat.S_IMODE(log_path.stat().st_mode) == 0o600
    assert not [p for p in log_path.parent.iterdir() if p.name.endswith(".tmp")]

    restarted = ContextCollapse(Settings(), log_path)
    restarted.load_state(json.loads(json.dumps(layer.state_to_json())))
    assert [c.id for c in restarted.commits] == [commit]
    assert dump(run(restarted, after.messages, estimate(after.messages)).messages) == dump(kept.messages)


def test_a_scratch_copy_leaves_the_log_alone(tmp_path: Path) -> None:
    """A look at the next request's view (/context) decides without logging, and trims nothing."""
    log_path = tmp_path / "commits.jsonl"
    layer = ContextCollapse(Settings(), log_path)
    before = long_conv()
    run(layer, before.messages, estimate(before.messages))
    written = log_path.read_bytes()
    twin = layer.scratch()
    twin.forget_absent(long_conv(start=BASE + timedelta(days=1)).messages)
    assert not twin.commits and log_path.read_bytes() == written and len(layer.commits) == 1
