"""The versions of files `/rewind` keeps are bounded per session, the oldest pruned first.

Every turn that changed a file saved its earlier content, and nothing was ever deleted but by a
rewind: since checkpoints outlive compactions, a long session's checkpoint folder grew with every
edit for as long as the session lasted. Now the versions take at most the session's cap; past it
the oldest checkpoints' versions go (never the newest's), a rewind to a later checkpoint loses
nothing, a rewind to a pruned one puts back what it still can and names what it cannot, and
versions the index no longer names (a crash between the two writes) are deleted at the next load.
"""

from __future__ import annotations

import json
from pathlib import Path

from compact_agent.agent.tools.checkpoint_retention import lost_line
from compact_agent.agent.tools.checkpoints import Checkpoints

SIZE = 300  # each version of a.txt: 300 bytes, all different


def version(i: int) -> str:
    return f"{i}" * SIZE


def blob_bytes(store: Path) -> int:
    return sum(f.stat().st_size for f in (store / "blobs").iterdir())


def six_turns(tmp_path: Path, cap: int) -> tuple[Checkpoints, Path, Path]:
    """a.txt rewritten in each of six turns (version i before turn i); new.txt created in turn 0."""
    a, new = tmp_path / "work" / "a.txt", tmp_path / "work" / "new.txt"
    a.parent.mkdir()
    a.write_text(version(0))
    cps = Checkpoints(tmp_path / "store", max_bytes=cap)
    for i in range(6):
        cps.begin(i, 2 * i, f"turn {i}")
        cps.before_write(a)
        a.write_text(version(i + 1))
        if i == 0:
            cps.before_write(new)
            new.write_text("made in turn 0")
    return cps, a, new


def test_the_versions_stay_within_the_cap_the_oldest_pruned_first(tmp_path: Path) -> None:
    cps, a, new = six_turns(tmp_path, cap=1000)
    store = tmp_path / "store"
    assert blob_bytes(store) <= 1000  # six versions of 300 bytes were kept before: 1,800
    kept = Checkpoints(store, max_bytes=1000).list()
    assert [c.pruned for c in kept] == [[str(a.resolve())]] * 3 + [[]] * 3  # written to the index
    assert [sorted(c.saved) for c in kept[:3]] == [[str(new.resolve())], [], []]  # a created file costs nothing
    # A rewind to a checkpoint still whole loses nothing.
    assert cps.unrestorable(3) == ([], [])
    assert cps.rewind(3)[0] == 6 and a.read_text() == version(3)


def test_a_rewind_to_a_pruned_checkpoint_puts_back_what_it_can_and_names_the_rest(tmp_path: Path) -> None:
    cps, a, new = six_turns(tmp_path, cap=1000)
    pruned, missing = cps.unrestorable(0)
    assert pruned == [a.resolve()] and missing == []
    history_len, restored = cps.rewind(0)
    assert history_len == 0 and restored == [new.resolve()]
    assert not new.exists()  # made since: deleted as before
    assert a.read_text() == version(6)  # not a later version passed off as the one before turn 0
    assert lost_line(pruned, missing, 1000 * 2**20) == (
        "1 file changed since could not be put back: the session keeps the newest 1,000 MB of the files' "
        f"versions and those were older, so it stays as now: {a.resolve()}")


def test_the_newest_checkpoint_is_never_pruned(tmp_path: Path) -> None:
    cps, a, _ = six_turns(tmp_path, cap=10)  # smaller than one version
    assert [bool(c.pruned) for c in cps.list()] == [True] * 5 + [False]
    assert cps.rewind(5)[0] == 10 and a.read_text() == version(5)


def test_versions_no_checkpoint_names_are_deleted_at_the_next_load(tmp_path: Path) -> None:
    cps, a, _ = six_turns(tmp_path, cap=10**6)
    store = tmp_path / "store"
    orphan = store / "blobs" / ("0" * 64)  # a crash between saving a version and writing the index
    orphan.write_bytes(b"x" * 1000)
    names = {f.name for f in (store / "blobs").iterdir()}
    Checkpoints(store)
    assert not orphan.exists() and {f.name for f in (store / "blobs").iterdir()} == names - {orphan.name}
    (store / "checkpoints.json").write_text("{not json")  # an index it cannot read deletes nothing
    Checkpoints(store)
    assert {f.name for f in (store / "blobs").iterdir()} == names - {orphan.name}


def test_a_version_deleted_by_hand_is_named_not_a_crash(tmp_path: Path) -> None:
    cps, a, new = six_turns(tmp_path, cap=10**6)
    index = json.loads((tmp_path / "store" / "checkpoints.json").read_text())
    (tmp_path / "store" / "blobs" / index["checkpoints"][4]["saved"][str(a.resolve())]).unlink()
    assert cps.unrestorable(2) == ([], [])  # turn 2's own version of a.txt is there
    assert cps.unrestorable(4) == ([], [a.resolve()])
    assert cps.rewind(4) == (8, [])  # it raised FileNotFoundError
    assert a.read_text() == version(6)
