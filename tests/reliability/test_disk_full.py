"""Disk full or permission denied while writing the session, an archive, notes or a spill.

Injected with the crash-point mechanism (`<point>:<n>[+]:enospc|eacces`, see compact_agent.crashpoints):
running as root, chmod cannot make a folder unwritable, and a real full disk cannot be arranged in a
test. The error is raised at the exact point a real one would surface: half-way through the write.
Each case: the turn says so in one line, nothing saved before is lost, and no compaction rewrites a
session whose archive could not be written.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from compact_agent import crashpoints
from compact_agent.config import Settings
from compact_agent.error_text import describe_error
from compact_agent.session.loading import _broken_pairs
from compact_agent.session.store import load_session_file
from tests.e2e.scripted import FileTaskAgent, make_project, task_text
from tests.fakes.openai_server import ChatRequest, FakeOpenAIServer, Reply, message_text

from .common import cli, cli_args, l5_settings, session
from .harness import Zygote, saved_messages, temp_files


@pytest.fixture(autouse=True)
def disarm() -> Iterator[None]:
    yield
    crashpoints.configure("")


def echo(req: ChatRequest) -> Reply:
    return Reply.text("echo: " + " | ".join(message_text(m) for m in req.messages if m.get("role") == "user"))


@pytest.mark.parametrize("error", ["enospc", "eacces"])
async def test_session_file_write_fails_the_turn_in_one_line_and_keeps_what_was_saved(tmp_path: Path, error: str
                                                                                     ) -> None:
    with FakeOpenAIServer(echo) as server:
        s = session(tmp_path / "h", tmp_path / "p", server)
        await s.run_turn("one")
        saved = saved_messages(tmp_path / "h")
        crashpoints.configure(f"append.partial:1+:{error}")
        with pytest.raises(OSError) as info:
            await s.run_turn("two")
        line = describe_error(info.value)
        assert "\n" not in line and "could not write the session file" in line and "intact" in line
        assert ("No space left" if error == "enospc" else "Permission denied") in line
        assert len(server.requests) == 1  # nothing was sent that could not be saved first
        assert saved <= saved_messages(tmp_path / "h")
        crashpoints.configure("")  # space freed
        out = await s.run_turn("three")
        await s.aclose()
    assert out.output == "echo: one | three"
    loaded = s.store.load()
    assert not loaded.warnings  # the half-written line was cut off by the next append
    assert not _broken_pairs(loaded.messages)


def _task(tmp_path: Path, server: FakeOpenAIServer, n: int = 12, **settings: object):  # noqa: ANN202
    make_project(tmp_path / "p", n)
    return session(tmp_path / "h", tmp_path / "p", server, window=12_000,
                   settings=l5_settings(**settings))


async def _run_task(tmp_path: Path, spec: str, n: int = 12, **settings: object):  # noqa: ANN202
    crashpoints.configure(spec)
    with FakeOpenAIServer(FileTaskAgent(n)) as server:
        s = _task(tmp_path, server, n, **settings)
        events: list = []
        s.cm.event_sink = events.append
        out = await s.run_turn(task_text(n))
        await s.aclose()
    return s, out, events, server


@pytest.mark.parametrize("spec", ["archive.partial:1:enospc", "archive.synced:1:eacces"])
async def test_no_compaction_rewrites_a_session_whose_archive_failed(tmp_path: Path, spec: str) -> None:
    s, out, events, server = await _run_task(tmp_path, spec)
    failed = [e for e in events if e.layer == "compact" and e.action == "failed"]
    done = [e for e in events if e.layer == "compact" and e.action != "failed"]
    assert len(failed) == 1 and "could not archive the transcript" in failed[0].detail["error"]
    assert "the session was not rewritten" in failed[0].detail["error"]
    # The rewrite was never reached for the failed one: one rewrite per successful compaction.
    assert crashpoints._counts["rewrite.synced"] == len(done) >= 1
    assert len(list(s.store.archive_dir.glob("*.jsonl"))) == len(done)  # no half archive either
    assert not temp_files(tmp_path / "h")
    assert out.output.startswith("FINAL SUM") and not server.rejected


async def test_a_failed_rewrite_leaves_the_old_session_and_the_archive(tmp_path: Path) -> None:
    s, out, events, server = await _run_task(tmp_path, "rewrite.partial:1:enospc")
    failed = [e for e in events if e.layer == "compact" and e.action == "failed"]
    done = [e for e in events if e.layer == "compact" and e.action != "failed"]
    assert len(failed) == 1 and "could not write the session file" in failed[0].detail["error"]
    # The archive of the failed attempt is there (written first), plus one per successful compaction.
    archives = sorted(s.store.archive_dir.glob("*.jsonl"))
    assert len(archives) == len(done) + 1
    assert not load_session_file(min(archives, key=lambda p: p.stat().st_mtime_ns)).boundaries
    assert not temp_files(tmp_path / "h")
    assert out.output.startswith("FINAL SUM")


async def test_spill_and_notes_write_failures_do_not_end_the_turn(tmp_path: Path) -> None:
    crashpoints.configure("spill.partial:1+:enospc,notes.partial:1+:enospc")
    make_project(tmp_path / "p", 10)
    agent = FileTaskAgent(10)
    settings = Settings(tool_result_max_chars=3_000, memory_enabled=True, adaptive_output_reserve=False, priced_compaction=False,
                        tool_result_room_share=1.0)
    with FakeOpenAIServer(agent) as server:
        s = session(tmp_path / "h", tmp_path / "p", server, window=12_000, settings=settings)
        events: list = []
        s.cm.event_sink = events.append
        out = await s.run_turn(task_text(10))
        await s.aclose()
    assert out.output.startswith("FINAL SUM")
    budget = [e for e in events if e.layer == "budget"]
    assert budget and all(e.action == "truncate" for e in budget)  # previews without a file to read back
    assert not list((s.store.dir / "tool-results").glob("*.txt"))
    if crashpoints._counts["notes.partial"]:
        assert not (s.store.dir / "notes.md").exists()
        assert any(e.layer == "memory" and e.action == "failed" for e in events)
    assert not temp_files(tmp_path / "h")


async def test_disk_full_through_the_cli(tmp_path: Path, zygote: Zygote) -> None:
    home, cwd = tmp_path / "home", tmp_path / "project"
    with FakeOpenAIServer(echo) as server:
        s = session(home, cwd, server, api_key="k")
        await s.run_turn("remember PELICAN")
        await s.aclose()
        full = cli(home, cwd, *cli_args(server, "second"), "--api-key", "k", "--continue",
                   env={"COMPACT_AGENT_CRASH_AT": "append.partial:1+:enospc"}, zygote=zygote)
        again = session(home, cwd, server, api_key="k", continue_last=True)
        out = await again.run_turn("third")
        await again.aclose()
    errors = [ln for ln in full.stderr_lines() if not ln.startswith("compact-agent: warning:")]
    assert full.code == 1 and len(errors) == 1, full.stderr  # (a warning: --api-key is visible)
    assert errors[0].startswith("compact-agent: could not write the session file")
    assert "No space left on device" in full.stderr and "what was saved before is intact" in full.stderr
    assert out.output == "echo: remember PELICAN | third"
