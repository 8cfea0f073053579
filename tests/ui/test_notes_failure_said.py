"""`/notes` says why an update of the session notes failed and when it is tried again: a reply with
the wrong sections left `no notes yet (… covers no message yet · 0 updates this run)`, the failure
only in events.jsonl, where usage.md promises the notes "or why there are none yet"."""

from __future__ import annotations

import io
from datetime import timedelta
from types import SimpleNamespace

from rich.console import Console

from compact_agent.ui.commands import dispatch
from tests.context.test_memory import Notes, history_with_response, make, notes_text, settle


async def notes(mem) -> str:
    c = Console(record=True, width=200, file=io.StringIO())
    await dispatch(SimpleNamespace(memory=mem), "/notes", c)  # type: ignore[arg-type]
    return c.export_text()


async def test_a_failed_update_is_said_with_when_it_is_tried_again(tmp_path):
    fn = Notes()
    fn.fail = 2
    mem, cm, clock = make(tmp_path, fn, memory_retry_s=30)
    msgs = history_with_response(3)
    mem.after_response(cm, msgs)
    await settle(mem)
    clock.t += timedelta(seconds=10)
    out = await notes(mem)
    first, status, path = out.splitlines()
    assert first == ("no notes yet: the last update failed (the reply has 0 of the 7 note sections); tried again "
                     "with a model response 20 s from now or later"), out
    assert status == "covers no message yet · 0 updates this run", out
    assert path == f"  {mem.path}", out  # the notes file on a line of its own

    clock.t += timedelta(seconds=21)  # the back-off is over: the next response tries again, and fails again
    mem.after_response(cm, msgs)
    await settle(mem)
    assert "the last update failed (2 in a row) (the reply has 0 of the 7 note sections); tried again with a " \
           "model response 60 s from now or later" in await notes(mem)

    clock.t += timedelta(seconds=61)
    mem.after_response(cm, msgs)
    await settle(mem)
    out = await notes(mem)
    assert mem.notes == notes_text() and "the last update failed" not in out, out  # an update that succeeds clears it


async def test_notes_an_update_failed_after_are_followed_by_the_failure(tmp_path):
    fn = Notes()
    mem, cm, clock = make(tmp_path, fn, memory_retry_s=30)
    msgs = history_with_response(3)
    mem.after_response(cm, msgs)
    await settle(mem)
    fn.fail = 1
    more = [*msgs[:-1], *history_with_response(7)[len(msgs) - 1:]]
    mem.after_response(cm, more)
    await settle(mem)
    clock.t += timedelta(seconds=40)  # the back-off is over: tried with the next response
    lines = (await notes(mem)).splitlines()
    assert lines[-1] == ("the last update failed (the reply has 0 of the 7 note sections); tried again with the "
                         "next model response"), lines
    assert "# Task and intent" in lines[0] and "1 update this run" in lines[-3], lines
