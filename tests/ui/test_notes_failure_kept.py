"""Why the last update of the session notes failed is kept with the session: `/notes` in a later run
(`-c -p` runs are short) still says it, as an earlier run's, until an update succeeds. It was known
only in the run that failed, so the next run said `no notes yet (… 0 updates this run)`."""

from __future__ import annotations

import json

from tests.context.test_memory import Notes, history_with_response, make, notes_text, settle

from .test_notes_failure_said import notes

WHY = "(the reply has 0 of the 7 note sections)"


async def test_a_later_run_says_why_the_notes_failed_until_an_update_succeeds(tmp_path):
    fn = Notes()
    fn.fail = 2
    msgs = history_with_response(3)
    first, cm, _ = make(tmp_path, fn, memory_retry_s=30)
    first.after_response(cm, msgs)
    await settle(first)
    first.close()

    second, cm, _ = make(tmp_path, fn, memory_retry_s=30)  # the next run of the session
    first_line, status, path = (await notes(second)).splitlines()
    assert first_line == (
        f"no notes yet: the last update, in an earlier run, failed {WHY}; tried again with the next model response")
    assert status == "covers no message yet · 0 updates this run", status  # not `message -1`
    assert path == f"  {second.path}", path  # on a line of its own
    second.after_response(cm, msgs)  # it tries at once, and fails again: this run's failure now
    await settle(second)
    assert f"no notes yet: the last update failed (2 in a row) {WHY}; tried again with a model response" \
           in await notes(second)
    second.close()

    third, cm, _ = make(tmp_path, fn, memory_retry_s=30)
    assert f"the last update, in an earlier run, failed (2 in a row) {WHY}" in await notes(third)
    third.after_response(cm, msgs)  # succeeds: the failure is cleared, in this run and on disk
    await settle(third)
    assert third.notes == notes_text() and "failed" not in await notes(third)
    third.close()

    fourth, _, _ = make(tmp_path, fn, memory_retry_s=30)
    out = await notes(fourth)
    assert "failed" not in out and "# Task and intent" in out, out
    assert "failed" not in json.loads(fourth.sidecar.read_text()), fourth.sidecar.read_text()
