"""Checkpoints: rewind restores content, deletes created files, and survives a restart."""

from __future__ import annotations

import stat
from pathlib import Path

import pytest

from compact_agent.agent.tools.checkpoints import Checkpoints


def _write(cps: Checkpoints, p: Path, text: str) -> None:
    cps.before_write(p)
    p.parent.mkdir(parents=True, exist_ok=True)
    p.write_text(text)


def test_rewind_restores_and_deletes(tmp_path: Path) -> None:
    work = tmp_path / "work"
    work.mkdir()
    a, new = work / "a.txt", work / "sub" / "new.txt"
    a.write_text("v0")
    cps = Checkpoints(tmp_path / "store")
    cp = cps.begin(turn_index=0, history_len=0, prompt="change   things\nplease")
    assert cp.prompt == "change things please"
    _write(cps, a, "v1")
    _write(cps, a, "v2")  # second change in the same checkpoint keeps the first snapshot
    _write(cps, new, "created")
    assert set(cps.list()[0].files) == {a.resolve(), new.resolve()}
    history_len, restored = cps.rewind(0)
    assert history_len == 0
    assert a.read_text() == "v0" and not new.exists()
    assert set(restored) == {a.resolve(), new.resolve()}
    assert cps.list() == []


def test_rewind_to_a_later_checkpoint_keeps_earlier_changes(tmp_path: Path) -> None:
    a = tmp_path / "a.txt"
    a.write_text("v0")
    cps = Checkpoints(tmp_path / "store")
    cps.begin(0, 0, "one")
    _write(cps, a, "v1")
    cps.begin(1, 4, "two")
    _write(cps, a, "v2")
    cps.begin(2, 8, "three")
    _write(cps, a, "v3")
    history_len, _ = cps.rewind(1)
    assert history_len == 4 and a.read_text() == "v1"
    assert [c.index for c in cps.list()] == [0]
    assert cps.begin(3, 4, "again").index == 1


def test_survives_reload_with_private_files(tmp_path: Path) -> None:
    a = tmp_path / "a.txt"
    a.write_text("original")
    store = tmp_path / "store"
    cps = Checkpoints(store)
    cps.begin(0, 2, "edit a")
    _write(cps, a, "changed")
    reloaded = Checkpoints(store)
    assert [(c.index, c.history_len, c.prompt) for c in reloaded.list()] == [(0, 2, "edit a")]
    assert stat.S_IMODE(store.stat().st_mode) == 0o700
    assert all(stat.S_IMODE(f.stat().st_mode) == 0o600 for f in store.rglob("*") if f.is_file())
    assert reloaded.rewind(0) == (2, [a.resolve()])
    assert a.read_text() == "original"


def test_drop_all_removes_blobs_and_no_checkpoint_is_a_noop(tmp_path: Path) -> None:
    a = tmp_path / "a.txt"
    a.write_text("x")
    store = tmp_path / "store"
    cps = Checkpoints(store)
    cps.before_write(a)  # nothing open: nothing saved
    assert cps.list() == []
    cps.begin(0, 0, "p")
    _write(cps, a, "y")
    assert any((store / "blobs").iterdir())
    cps.drop_all()
    assert cps.list() == [] and not any((store / "blobs").iterdir())
    with pytest.raises(IndexError):
        cps.rewind(0)


def test_corrupt_index_starts_empty(tmp_path: Path) -> None:
    store = tmp_path / "store"
    store.mkdir()
    (store / "checkpoints.json").write_text("{not json")
    assert Checkpoints(store).list() == []


def test_a_prompt_quoting_the_api_key_is_saved_and_shown_redacted(tmp_path: Path) -> None:
    """A user who pastes the key into a prompt: the session redacted it, the checkpoint index (and
    the `/rewind` list made from it) held it in clear. An index an older version wrote is cleaned
    at its next save."""
    from compact_agent.context.plumbing import secrets as registry
    from compact_agent.secrets import REDACTED, register

    key = "sk-checkpoint-0123456789abcdef0123456789"
    store = tmp_path / "cp"
    older = Checkpoints(store)
    older.begin(0, 0, "an older prompt")
    index = store / "checkpoints.json"
    index.write_text(index.read_text().replace("an older prompt", f"older {key}"))
    register(key)
    try:
        cps = Checkpoints(store)
        cps.load()
        cp = cps.begin(1, 2, f"my key is {key} remember it")
        assert key not in cp.prompt and REDACTED in cp.prompt
        assert key not in index.read_text() and index.read_text().count(REDACTED) == 2
        assert [c.prompt for c in Checkpoints(store).load().list()][-1] == cp.prompt
    finally:
        registry.registered_keys.discard(key)


def test_a_retried_turn_goes_on_in_the_checkpoint_of_its_failed_attempt(tmp_path: Path) -> None:
    """A turn sent again after it failed (agent/run/unfinished.py) opened a second checkpoint for the
    same message: /rewind listed it twice, and the second kept the files as the failed attempt left them."""
    a = tmp_path / "a.txt"
    a.write_text("v0")
    cps = Checkpoints(tmp_path / "store")
    cps.begin(0, 0, "one")
    first = cps.begin(1, 4, "append X")
    _write(cps, a, "v1")  # the failed attempt's tool changed it, its result never saved
    again = Checkpoints(tmp_path / "store")  # as `-c -p` finds them
    assert again.begin(0, 4, "append X", retry=True).index == first.index
    _write(again, a, "v2")
    assert [c.prompt for c in again.list()] == ["one", "append X"]
    history_len, _ = again.rewind(1)
    assert history_len == 4 and a.read_text() == "v0"
    assert again.begin(1, 4, "other", retry=True).index == 1  # another message: a checkpoint of its own
    assert len(again.list()) == 2


def test_a_new_turn_at_the_same_place_is_not_taken_for_a_retry(tmp_path: Path) -> None:
    cps = Checkpoints(tmp_path / "store")
    cps.begin(0, 0, "one")
    assert cps.begin(1, 0, "one").index == 1  # not a retry: the same words sent as a new message
