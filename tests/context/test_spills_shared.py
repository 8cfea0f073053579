"""Identical spilled tool results are stored once: a session that read the same ten files a
thousand times kept 898 copies (11 MB) in its `tool-results/` folder. Each result's own file, the
path its preview and its saved decision name, is a hard link to one text named by its hash; every
one still reads its own result, after a restart too, and a file gone missing is linked again."""

from __future__ import annotations

import hashlib
import json
import os
import stat
from pathlib import Path

import pytest
from pydantic_ai.messages import ModelRequest, ToolReturnPart

from compact_agent.config import Settings
from compact_agent.context.layers import spills
from compact_agent.context.layers.budget import ToolResultBudget
from tests.context.strategies import Conv, big_text, budget_for, dump

READS = 60


def conversation() -> tuple[Conv, dict[str, str]]:
    """READS reads of two long files, in turn; the text each call's result holds."""
    texts = [big_text("a", 60_000), big_text("b", 70_000)]
    conv, by_id = Conv(), {}
    for i in range(READS):
        conv.user(f"read it again {i}").call("read_file", {"path": f"f{i % 2}.txt"}, texts[i % 2]).say("ok")
        by_id[f"call_{i + 1}"] = texts[i % 2]
    return conv, by_id


def previews(messages: list) -> dict[str, str]:
    return {p.tool_call_id: str(p.content) for m in messages if isinstance(m, ModelRequest)
            for p in m.parts if isinstance(p, ToolReturnPart)}


def test_identical_spills_make_one_file_and_each_reference_reads_its_result(tmp_path: Path) -> None:
    spill = tmp_path / "tool-results"
    conv, by_id = conversation()
    layer = ToolResultBudget(Settings(), spill)
    shown = previews(layer.apply(conv.messages, budget_for(conv.messages, conv.t)).messages)
    names = {f"{hashlib.sha256(t.encode()).hexdigest()}.txt" for t in by_id.values()}
    assert sorted(p.name for p in (spill / spills.BY_CONTENT).iterdir()) == sorted(names)  # two texts
    inodes = set()
    for call_id, text in by_id.items():
        path = spill / f"{call_id}.txt"
        assert str(path) in shown[call_id]  # the path the model is given
        assert path.read_text() == text
        assert layer.actions[call_id]["path"] == str(path)
        inodes.add(os.stat(path).st_ino)
    assert len(inodes) == 2  # the bytes of each text once on disk
    assert {stat.S_IMODE(p.stat().st_mode) for p in (spill, spill / spills.BY_CONTENT)} == {0o700}  # private
    assert not [p for p in spill.iterdir() if p.name.endswith(".tmp")]  # no temp link left behind


def test_after_a_restart_a_missing_file_is_linked_again_and_every_reference_reads_right(tmp_path: Path) -> None:
    spill = tmp_path / "tool-results"
    conv, by_id = conversation()
    layer = ToolResultBudget(Settings(), spill)
    first = layer.apply(conv.messages, budget_for(conv.messages, conv.t))
    state = json.loads(json.dumps(layer.state_to_json()))
    (spill / "call_3.txt").unlink()  # gone while the session was closed
    restarted = ToolResultBudget(Settings(), spill)
    restarted.load_state(state)
    again = restarted.apply(conv.messages, budget_for(conv.messages, conv.t))
    assert dump(again.messages) == dump(first.messages)  # the prompt does not change
    assert (spill / "call_3.txt").read_text() == by_id["call_3"]
    assert os.stat(spill / "call_3.txt").st_ino == os.stat(spill / "call_1.txt").st_ino
    assert len(list((spill / spills.BY_CONTENT).iterdir())) == 2


def test_a_run_killed_before_saving_its_decisions_spills_again_and_leaves_no_temp_link(tmp_path: Path) -> None:
    """A run killed after spilling but before saving the budget's state: the next run spills the
    same results at the same names, each already a link to its text. rename(2) does nothing then,
    and the temp link must not be left beside them (the kill test found one after a resume)."""
    spill = tmp_path / "tool-results"
    conv, by_id = conversation()
    ToolResultBudget(Settings(), spill).apply(conv.messages, budget_for(conv.messages, conv.t))
    before = {p.name: os.stat(p).st_ino for p in spill.iterdir()}
    restarted = ToolResultBudget(Settings(), spill)  # no state was saved
    restarted.apply(conv.messages, budget_for(conv.messages, conv.t))
    assert {p.name: os.stat(p).st_ino for p in spill.iterdir()} == before  # the same files, nothing beside them
    assert all((spill / f"{call_id}.txt").read_text() == text for call_id, text in by_id.items())


def test_a_text_changed_by_hand_is_not_shared_again(tmp_path: Path) -> None:
    spill = tmp_path / "tool-results"
    spills.store(spill / "one.txt", "the same long text\n" * 100)
    [blob] = (spill / spills.BY_CONTENT).iterdir()
    blob.chmod(0o600)
    with open(blob, "r+") as f:  # changed in place: every link to it reads the change
        f.write("CHANGED")
    spills.store(spill / "two.txt", "the same long text\n" * 100)
    assert (spill / "two.txt").read_text() == "the same long text\n" * 100


def test_without_hard_links_each_result_gets_a_copy_of_its_own(tmp_path: Path, monkeypatch: pytest.MonkeyPatch
                                                                 ) -> None:
    def no_links(*_: object) -> None:
        raise OSError(1, "Operation not permitted")

    monkeypatch.setattr(spills.os, "link", no_links)
    spill = tmp_path / "tool-results"
    conv, by_id = conversation()
    ToolResultBudget(Settings(), spill).apply(conv.messages, budget_for(conv.messages, conv.t))
    for call_id, text in by_id.items():
        assert (spill / f"{call_id}.txt").read_text() == text
    assert not [p for p in spill.iterdir() if p.name.endswith(".tmp")]
    assert not list((spill / spills.BY_CONTENT).iterdir())  # no shared copy beside each: every text once


def test_a_shared_copy_that_is_not_private_is_not_shared(tmp_path: Path) -> None:
    spill = tmp_path / "tool-results"
    spills.store(spill / "one.txt", "the same long text\n" * 100)
    [blob] = (spill / spills.BY_CONTENT).iterdir()
    blob.chmod(0o644)  # by hand, or a copy tool: every link would be readable by all
    spills.store(spill / "two.txt", "the same long text\n" * 100)
    assert stat.S_IMODE((spill / "two.txt").stat().st_mode) == 0o600
    assert (spill / "two.txt").read_text() == "the same long text\n" * 100
    assert os.stat(spill / "two.txt").st_ino != os.stat(spill / "one.txt").st_ino


def test_a_shared_folder_that_is_a_link_elsewhere_is_not_written_through(tmp_path: Path) -> None:
    """`.by-content` a link to another folder (planted by hand or by a command): the texts would be
    written there and stay after the session is removed. Each result gets a copy of its own instead."""
    spill, elsewhere = tmp_path / "tool-results", tmp_path / "elsewhere"
    spill.mkdir(mode=0o700)
    elsewhere.mkdir(mode=0o700)
    (spill / spills.BY_CONTENT).symlink_to(elsewhere)
    conv, by_id = conversation()
    ToolResultBudget(Settings(), spill).apply(conv.messages, budget_for(conv.messages, conv.t))
    assert not list(elsewhere.iterdir())
    for call_id, text in by_id.items():
        path = spill / f"{call_id}.txt"
        assert path.read_text() == text
        assert stat.S_ISREG(os.lstat(path).st_mode) and os.stat(path).st_nlink == 1
    assert not [p for p in spill.iterdir() if p.name.endswith(".tmp")]


def test_removing_the_session_removes_the_shared_texts_too(tmp_path: Path) -> None:
    from compact_agent.session import removal
    from compact_agent.session.store import SessionStore

    store = SessionStore(tmp_path, "s1")
    store.lock()
    store.append([ModelRequest.user_text_prompt("hello")])
    spill = store.side_dir("tool-results")
    for k in range(5):
        spills.store(spill / f"call_{k}.txt", "the same long output\n" * 500)
    assert len(list((spill / spills.BY_CONTENT).iterdir())) == 1
    store.unlock()
    removal.remove(tmp_path, "s1")
    assert not (tmp_path / "s1").exists() and not (tmp_path / "s1.jsonl").exists()


def test_a_dry_run_counts_the_shared_texts_as_the_removal_frees_them(tmp_path: Path) -> None:
    from compact_agent.session import removal
    from compact_agent.session.store import SessionStore

    store = SessionStore(tmp_path, "s1")
    store.lock()
    store.append([ModelRequest.user_text_prompt("hello")])
    spill = store.side_dir("tool-results")
    for k in range(3):
        spills.store(spill / f"call_{k}.txt", "x" * 100_000)
    spills.store(spill / "kept.txt", "y" * 50_000)
    os.link(spill / "kept.txt", tmp_path / "outside.txt")  # a name outside the session keeps these bytes
    store.unlock()
    dry = removal.remove(tmp_path, "s1", dry=True)
    assert 100_000 <= dry.freed < 150_000  # the shared text once; the one linked from outside not at all
    assert removal.remove(tmp_path, "s1").freed == dry.freed
    assert (tmp_path / "outside.txt").read_text() == "y" * 50_000
