"""An automatic compaction that would not shrink the context is said as skipped, not failed, and
once three in a row have paused automatic compaction /status says so, and when it is tried again
(its cool-down, by the session's clock: breaker_retry.py). /status said 'auto-compaction
on' with the context over the threshold and '0 tokens until auto-compaction', when none would be
tried again in that run; `--verbose` said 'auto-compaction failed: compaction would not shrink the
context (…)' of a compaction that changed nothing because it would not have helped."""

from __future__ import annotations

import io
from datetime import timedelta
from pathlib import Path

from rich.console import Console

import compact_agent.ui.commands  # noqa: F401 - registers /status
from compact_agent.agent.run.options import SessionOptions
from compact_agent.agent.run.runner import AgentSession
from compact_agent.agent.run.stream_events import compaction_end
from compact_agent.config import Settings
from compact_agent.context.wiring import utcnow
from compact_agent.ui.command_registry import COMMANDS
from compact_agent.ui.render import compact_line, failed_line
from tests.fakes.openai_server import FakeOpenAIServer, Reply, message_text

from .scripted import FileTaskAgent, is_summary_request, make_project, task_text

N = 30  # reads enough for three compactions to be tried (previews of reads are small since d78f4078)


def session(tmp_path: Path, server: FakeOpenAIServer) -> AgentSession:
    opts = SessionOptions(cwd=tmp_path / "project", model="fake-model", base_url=server.base_url, api_key="k",
                          context_window=12_000, permission_mode="yes", home=tmp_path / "home",
                          settings=Settings(memory_enabled=False, collapse_enabled=False, compaction_records=False,
                                            microcompact_trigger=1000))
    return AgentSession(opts)


async def status(s: AgentSession) -> str:
    console = Console(record=True, width=200, file=io.StringIO(), force_terminal=False)
    await COMMANDS["status"].handler(s, "", console)
    return " ".join(console.export_text().split())


async def test_compactions_that_would_not_shrink_are_skipped_and_pause_auto_compaction(tmp_path: Path) -> None:
    make_project(tmp_path / "project", N)
    agent = FileTaskAgent(N)

    def responder(req):
        if is_summary_request(req):  # a summary longer than what it replaces
            return Reply.text(agent.summarize(req).content.replace("</summary>", "") + " word" * 20_000
                              + "</summary>")
        return agent(req)

    events: list = []
    now = utcnow()
    with FakeOpenAIServer(responder, window=128_000) as server:
        s = session(tmp_path, server)
        s.cm.event_sink = events.append
        s.cm.clock = lambda: now  # standing still: the pause's cool-down is a minute away when /status asks
        try:
            assert "auto-compaction on" in await status(s)
            await s.run_turn(task_text(N))
            shown = await status(s)
        finally:
            s.close()
    refused = [e for e in events if e.layer == "compact" and e.action == "failed"]
    assert len(refused) == 3 and s.cm.breaker_open
    assert all(e.detail.get("skipped") for e in refused)
    lines = [compact_line(e) for e in refused]
    assert all(line.startswith("compaction skipped: compaction would not shrink the context (") for line in lines)
    assert "paused" not in lines[0] and "paused" not in lines[1]
    assert lines[2].endswith("; 3 in a row, so automatic compaction is paused, tried again in 1 minute "
                             "(/compact still works)")
    assert failed_line(refused[0], "auto-").startswith("auto-compaction skipped: ")  # as --verbose says it
    assert compaction_end(refused[2]) is not None and compaction_end(refused[2])["skipped"] is True
    end = compaction_end(refused[2])  # stream-json says when it is tried again too
    assert end is not None and end["paused"] is True and end["retry_in_s"] == 60
    assert "retry_in_s" not in (compaction_end(refused[1]) or {})
    assert "auto-compaction on" not in shown and "tokens until auto-compaction" not in shown
    assert ("auto-compaction paused: the last 3 tried in a row failed or would not shrink the context; "
            "it is tried again in 1 minute, and resumes if that succeeds (a /compact that succeeds, or "
            "/compact --resume-auto, resumes it now)") in shown, shown


def broken_summaries(agent: FileTaskAgent):  # noqa: ANN201 - the fake server's responder
    """The task's answers, and a refusal of every summary request (shared and separate)."""
    def responder(req):
        if is_summary_request(req) or "<transcript>" in message_text(req.messages[-1]):
            return Reply.error(400, {"error": {"message": "summaries are broken today", "type": "invalid_request_error"}})
        return agent(req)
    return responder


async def test_a_summary_request_that_fails_is_still_a_failure(tmp_path: Path) -> None:
    make_project(tmp_path / "project", N)
    events: list = []
    with FakeOpenAIServer(broken_summaries(FileTaskAgent(N)), window=128_000) as server:
        s = session(tmp_path, server)
        s.cm.event_sink = events.append
        try:
            await s.run_turn(task_text(N))
        finally:
            s.close()
    failed = [e for e in events if e.layer == "compact" and e.action == "failed"]
    assert len(failed) == 3 and not any(e.detail.get("skipped") for e in failed)
    assert compact_line(failed[0]).startswith("compaction failed: ")


async def test_a_failed_compaction_says_how_long_it_kept_the_user_waiting(tmp_path: Path) -> None:
    """A PreCompact step of 8 s before a summary request that failed: the line said 'compaction
    failed: …' with no time, though the user had waited for it. The manager's clock is injected: the
    step "takes" 8 s by it, the rest nothing."""
    make_project(tmp_path / "project", N)
    now = [utcnow()]

    async def slow(trigger: str, instructions: str) -> None:
        now[0] += timedelta(seconds=8)

    events: list = []
    with FakeOpenAIServer(broken_summaries(FileTaskAgent(N)), window=128_000) as server:
        s = session(tmp_path, server)
        s.cm.event_sink = events.append
        s.cm.clock = lambda: now[0]
        s.cm.before_compact = slow
        try:
            await s.run_turn(task_text(N))
        finally:
            s.close()
    failed = [e for e in events if e.layer == "compact" and e.action == "failed"]
    assert failed and all(e.duration_ms == 8_000 for e in failed)
    assert compact_line(failed[0]).startswith("compaction failed after 8.0s: ")
    end = compaction_end(failed[0])
    assert end is not None and end["duration_ms"] == 8_000
