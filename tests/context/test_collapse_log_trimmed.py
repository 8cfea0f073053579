"""The collapse log keeps the commits a compaction left, no more: `forget_absent` rewrites it.

Before, the commits a compaction dropped were dropped in memory only: the log kept every commit
the session ever made, and a restart read them all back and tried each on every request until the
next compaction (a 1,500-turn session's log grew with every one of its compactions). The messages
they folded are in the archives, whole."""

from __future__ import annotations

import contextlib
import errno
import json
import os
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


def test_the_temp_of_a_killed_rewrite_goes_at_the_next_lock(tmp_path: Path, monkeypatch) -> None:
    """Killed before its rename, the rewrite leaves `collapse/.commits.jsonl.<random>.tmp`: the next
    run that opens the session removes it, as it does the other writers' temps."""
    from pydantic_ai.messages import ModelRequest

    from compact_agent.context.plumbing.markers import write_private
    from compact_agent.session.store import SessionStore

    store = SessionStore(tmp_path / "sessions", "s1")
    store.lock()
    store.append([ModelRequest.user_text_prompt("hello")])
    log_path = store.side_dir("collapse") / "commits.jsonl"
    with monkeypatch.context() as m:
        m.setattr(os, "replace", lambda *_a, **_k: (_ for _ in ()).throw(OSError(errno.EIO, "killed here")))
        m.setattr(Path, "unlink", lambda *_a, **_k: None)  # a kill cleans up nothing
        with contextlib.suppress(OSError):
            write_private(log_path, "", "collapse.trim")
    assert [p.name for p in log_path.parent.iterdir() if p.name.endswith(".tmp")]
    store.unlock()
    again = SessionStore(tmp_path / "sessions", "s1")
    again.lock()
    try:
        assert not [p.name for p in log_path.parent.iterdir() if p.name.endswith(".tmp")]
    finally:
        again.unlock()
