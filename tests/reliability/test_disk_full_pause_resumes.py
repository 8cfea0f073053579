"""The terminal agent's session store on a full disk: automatic compactions that cannot write their
archive pause automatic compaction, and once space is freed it resumes in the same turn, without a
/compact. It stayed paused until one ('it stays paused in this session until a /compact succeeds')
while the session grew. The pause is said once, with when it is tried again (/status says it too);
a try that fails again says nothing more; the compaction that resumes it says so; and no session is
rewritten without its archive written first.

The full disk is injected with the crash-point mechanism (test_disk_full.py), then lifted from the
fake server a few requests after the pause, as a user freeing space while the task runs.
"""

from __future__ import annotations

import io
import re
from collections.abc import Iterator
from pathlib import Path

import pytest
from rich.console import Console

import compact_agent.ui.commands  # noqa: F401 - registers /status
from compact_agent import crashpoints
from compact_agent.context.breaker_retry import ARCHIVE_RETRY
from compact_agent.context.plumbing.events import Event
from compact_agent.session.store import load_session_file
from compact_agent.ui.command_registry import COMMANDS
from compact_agent.ui.session_feed import SessionFeed
from tests.e2e.scripted import FileTaskAgent, make_project, task_text
from tests.fakes.openai_server import FakeOpenAIServer

from .common import l5_settings, session
from .harness import temp_files

FIRST, N = 20, 50  # the first turn's reads: three failed compactions, a pause, a try that fails again


@pytest.fixture(autouse=True)
def disarm() -> Iterator[None]:
    yield
    crashpoints.configure("")


def said(console: Console) -> str:
    return " ".join(console.export_text().split())


def plain() -> Console:
    return Console(record=True, width=4_000, file=io.StringIO(), force_terminal=False)


async def test_a_full_disk_pauses_auto_compaction_and_freed_space_resumes_it(tmp_path: Path) -> None:
    make_project(tmp_path / "p", N)
    agent, console, status = FileTaskAgent(FIRST), plain(), plain()
    events: list[Event] = []
    feed = SessionFeed(console, view=lambda: None, window=lambda: 12_000)  # what the REPL prints
    crashpoints.configure("archive.partial:1+:enospc")
    with FakeOpenAIServer(agent) as server:
        s = session(tmp_path / "h", tmp_path / "p", server, window=12_000, settings=l5_settings())

        def on_event(ev: Event) -> None:
            events.append(ev)
            feed.on_event(ev)

        s.cm.event_sink = on_event
        first = await s.run_turn(task_text(FIRST))
        await COMMANDS["status"].handler(s, "", status)
        paused = s.cm.breaker_open
        crashpoints.configure("")  # the user freed some space
        agent.n = N
        out = await s.run_turn(task_text(N))  # the same task, more files: no /compact between
        await s.aclose()
    assert first.output.startswith("FINAL SUM") and out.output.startswith("FINAL SUM") and not agent.lost_task
    assert paused and s.cm.failures == 0 and not s.cm.breaker_open
    failed = [e for e in events if e.layer == "compact" and e.action == "failed"]
    made = [e for e in events if e.layer == "compact" and e.action != "failed"]
    assert len(failed) == 4 and all("No space left on device" in e.detail["error"] for e in failed)
    assert [bool(e.detail.get("paused")) for e in failed] == [False, False, True, False]
    assert failed[2].detail["retry_after"] == ARCHIVE_RETRY
    assert failed[3].detail.get("retry") and failed[3].detail["retry_after"] == 2 * ARCHIVE_RETRY
    assert made and made[0].detail.get("resumed") and not any(e.detail.get("resumed") for e in made[1:])
    text = said(console)  # a path is printed whole, over more than one line of the console
    assert text.count("compaction failed: could not archive the transcript, so the session was not rewritten: "
                      "No space left on device") == 3  # the try that failed again said nothing
    assert text.count("paused") == 1
    assert (f"; 3 in a row, so automatic compaction is paused, tried again in {ARCHIVE_RETRY} requests "
            "(/compact still works)") in text, text
    assert text.count("automatic compaction resumed") == 1
    assert re.search(r"compacted \(auto, full\): [\d,]+ → [\d,]+ tokens in [\d.]+ m?s; automatic compaction resumed",
                     text), text
    # /status while paused says when it is tried again, not that only a /compact ends it.
    shown = " ".join(status.export_text().split())
    assert "auto-compaction paused: the last 4 tried in a row failed, the latest unable to archive the transcript; " \
           "it is tried again in " in shown, shown
    assert "until a /compact succeeds" not in shown
    # No rewrite without its archive: each compaction made names its own, written; the failed left none.
    archives = sorted(s.store.archive_dir.glob("*.jsonl"))
    assert sorted(e.detail["archive"] for e in made) == [str(a) for a in archives]
    assert load_session_file(s.store.path).boundaries[-1].archive == str(archives[-1])
    assert not temp_files(tmp_path / "h")


async def test_a_session_paused_by_a_full_disk_resumes_in_the_next_run_without_a_compact(tmp_path: Path) -> None:
    """`-c` after freeing the space: the run does not start by saying automatic compaction is paused
    ('a /compact that succeeds resumes it'), and its first compaction is made and resumes it. It went
    on paused until a /compact."""
    make_project(tmp_path / "p", N)
    agent, events = FileTaskAgent(FIRST), []
    crashpoints.configure("archive.partial:1+:enospc")
    with FakeOpenAIServer(agent) as server:
        s = session(tmp_path / "h", tmp_path / "p", server, window=12_000, settings=l5_settings())
        await s.run_turn(task_text(FIRST))
        paused = s.cm.breaker_open
        await s.aclose()
        crashpoints.configure("")  # freed between the runs
        again = session(tmp_path / "h", tmp_path / "p", server, window=12_000, settings=l5_settings(),
                        continue_last=True)
        again.cm.event_sink = events.append
        notes = list(again.notes)
        agent.n = N
        out = await again.run_turn(task_text(N))
        await again.aclose()
    assert paused and out.output.startswith("FINAL SUM") and not agent.lost_task
    assert not any("paused" in note for note in notes), notes
    made = [e for e in events if e.layer == "compact"]
    assert made and made[0].action == "full" and made[0].detail.get("resumed")
    assert not again.cm.breaker_open and again.cm.failures == 0
