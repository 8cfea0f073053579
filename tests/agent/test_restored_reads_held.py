"""The files a compaction restores are read while it is built, before it is known to hold. Those
reads count (`edit_file` trusts them) only once it holds, and only for the files the history it
left shows: a compaction previewed and declined, or refused, left them recorded as read as the files
are now, so after a file changed on disk the read guard trusted the model's older view of it."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from compact_agent.agent.run.options import SessionOptions
from compact_agent.agent.run.runner import AgentSession
from compact_agent.agent.tools.file_state import FileRead, HeldReads, ReadFileState
from compact_agent.context import CompactionBlocked, CompactionResult
from tests.e2e.scripted import is_summary_request
from tests.fakes.openai_server import FakeOpenAIServer, Reply


def test_held_reads_count_only_for_what_the_history_shows(tmp_path: Path) -> None:
    a, b, c = (tmp_path / n for n in "abc")
    for f in (a, b, c):
        f.write_text(f.name)
    mtime = {f: f.stat().st_mtime_ns for f in (a, b, c)}
    state = ReadFileState()
    old = state.record(a, mtime[a] - 1)
    held = HeldReads(state)

    def restore() -> str:
        state.record(a, mtime[a])
        state.record(b, mtime[b], True, offset=1, limit=9)
        state.record(c, mtime[c])
        return "messages"

    assert held.hold(restore) == "messages"
    assert state.paths() == [a] and state.get(a) is old  # as before the compaction was built
    held.settle([b, a])
    assert state.paths() == [a, b]
    got = state.get(b)
    assert isinstance(got, FileRead) and (got.mtime_ns, got.partial, got.offset, got.limit) == (mtime[b], True, 1, 9)
    assert state.get(a) is not None and state.get(a).mtime_ns == mtime[a]  # type: ignore[union-attr]
    held.settle([c])  # settled once: a later compaction's files come from its own reads
    assert c not in state


def test_reads_held_by_a_compaction_that_never_held_are_not_put_back_stale(tmp_path: Path) -> None:
    """A refused compaction's held reads stayed held; a later one that restores nothing (reads
    nothing to replace them) put them back, with the old mtime of a file changed since: edit_file
    then refused a file the model had just read, as changed on disk."""
    f = tmp_path / "a.py"
    f.write_text("one")
    state = ReadFileState()
    held = HeldReads(state)
    held.hold(lambda: state.record(f, f.stat().st_mtime_ns))  # compaction 1, refused: never settled
    f.write_text("two, longer")
    os.utime(f, ns=(f.stat().st_atime_ns, f.stat().st_mtime_ns + 10**9))
    state.record(f, f.stat().st_mtime_ns)  # the model reads it again
    held.settle([f])  # compaction 2 holds, having restored nothing
    assert state.is_current(f)


def edits_twice(req):
    """Writes a file, edits it twice (a model that returns to the files it changed), then talks."""
    if is_summary_request(req):
        return Reply.text("<summary>We wrote and edited mod.py.</summary>")
    asked = sum(1 for m in req.messages if m.get("role") == "assistant")
    steps = [("write_file", {"path": "mod.py", "content": "A = 1\nB = 2\n" + "# filler\n" * 300}),
             ("edit_file", {"path": "mod.py", "old_string": "A = 1", "new_string": "A = 10"}),
             ("edit_file", {"path": "mod.py", "old_string": "B = 2", "new_string": "B = 20"})]
    if asked < len(steps):
        return Reply.tools([steps[asked]])
    return Reply.text("Done. " + "words " * 400)


async def test_a_declined_compaction_leaves_the_reads_and_one_that_holds_counts_its_own(tmp_path: Path) -> None:
    cwd = tmp_path / "project"
    cwd.mkdir()
    with FakeOpenAIServer(edits_twice) as server:
        s = AgentSession(SessionOptions(cwd=cwd, model="fake-model", base_url=server.base_url, api_key="k",
                                        context_window=32_000, permission_mode="yes", home=tmp_path / "home"))
        try:
            await s.run_turn("write mod.py and set A and B")
            for i in range(3):
                await s.run_turn(f"tell me more {i}")
            mod = (cwd / "mod.py").resolve()
            # The user changes the file in an editor: the model's read of it is out of date.
            mod.write_text(mod.read_text().replace("B = 20", "B = 30"))
            os.utime(mod, ns=(mod.stat().st_atime_ns, mod.stat().st_mtime_ns + 10**9))
            assert not s.read_state.is_current(mod)
            before = s.read_state.to_json()
            shown: list[CompactionResult] = []

            async def decline(result: CompactionResult) -> bool:
                shown.append(result)
                return False

            with pytest.raises(CompactionBlocked):
                await s.compact(confirm=decline)
            assert shown and shown[0].event.detail["restored"] >= 1  # it did read mod.py back in
            # edit_file still refuses until the model sees the file as it is now
            assert s.read_state.to_json() == before and not s.read_state.is_current(mod)

            gone = cwd / "gone.py"
            gone.write_text("x = 1\n")
            s.read_state.record(gone.resolve(), gone.stat().st_mtime_ns)  # a read the summary will replace
            result = await s.compact()
            assert result.event.detail["restored"] >= 1
            assert s.read_state.is_current(mod)  # read back in as it is now, and in view: edit_file may trust it
            from compact_agent.agent.tools.edits import _guard_current

            refused = str(_guard_current(s.env, gone.resolve(), "edit"))
            assert "read before the conversation was compacted" in refused and "gone.py" in refused, refused
        finally:
            s.close()


def test_an_edit_of_a_file_whose_read_a_compaction_took_away_says_so(tmp_path: Path) -> None:
    """edit_file refused 'File has not been read yet' of a file the model had read before a
    compaction summarised the read: it now says the read is no longer in view."""
    state = ReadFileState()
    f = tmp_path / "mod.py"
    state.record(f, 1)
    state.forget(f, summarised=True)
    assert f not in state and state.was_summarised(f)
    state.record(f, 2)  # read again: nothing to say any more
    assert not state.was_summarised(f)
    state.forget(tmp_path / "never-read.py", summarised=True)
    assert not state.was_summarised(tmp_path / "never-read.py")


def test_a_clear_or_a_rewind_forgets_what_compactions_summarised(tmp_path: Path) -> None:
    f = tmp_path / "mod.py"
    f.write_text("x = 1\n")
    for undo in ("clear", "rewound"):
        state = ReadFileState()
        state.record(f, f.stat().st_mtime_ns)
        state.forget(f, summarised=True)
        if undo == "clear":
            state.clear()
        else:
            state.rewound(ReadFileState().current_json(), [])  # back to before the file was read
        assert not state.was_summarised(f), undo  # 'has not been read yet' is what is true now
