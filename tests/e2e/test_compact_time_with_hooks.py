"""The time a compaction's line reports is what the user waited for, its PreCompact hooks included,
and a second or more in hooks is said apart: '/compact' behind an 8-second hook said
'compacted (manual, full): … in 0.1s' (the compactor timed only its own work). The hook's time is
read from the manager's clock (injected here: the hook "takes" 8 s without the test sleeping)."""

from __future__ import annotations

import io
import re
from datetime import timedelta
from pathlib import Path

import pytest
from rich.console import Console

import compact_agent.ui.commands  # noqa: F401 - registers /compact
from compact_agent.agent.run.options import SessionOptions
from compact_agent.agent.run.runner import AgentSession
from compact_agent.agent.run.stream_events import compaction_end
from compact_agent.config import Settings
from compact_agent.context.plumbing.events import Event
from compact_agent.context.wiring import utcnow
from compact_agent.ui.command_registry import COMMANDS
from compact_agent.ui.render import compact_line
from tests.fakes.openai_server import FakeOpenAIServer, Reply

from .scripted import is_summary_request

HOOK_S = 8


def responder(req):
    if is_summary_request(req):
        return Reply.text("<summary>We talked about the parser.</summary>")
    return Reply.text("ok " + "words " * 1500)


def session(tmp_path: Path, server: FakeOpenAIServer, hooks: dict, events: list[Event]) -> AgentSession:
    cwd = tmp_path / "project"
    cwd.mkdir(exist_ok=True)
    opts = SessionOptions(cwd=cwd, model="fake-model", base_url=server.base_url, api_key="k", context_window=32_000,
                          permission_mode="yes", home=tmp_path / "home",
                          settings=Settings(memory_enabled=False, compaction_records=False, hooks=hooks))
    return AgentSession(opts, on_event=events.append)


def slow_hooks(s: AgentSession, seconds: float) -> None:
    """The manager's clock stands still but for the hooks, which take `seconds` by it."""
    now = [utcnow()]
    s.cm.clock = lambda: now[0]
    run_hooks = s.cm.before_compact
    assert run_hooks is not None

    async def hooks(trigger: str, instructions: str) -> str | None:
        answer = await run_hooks(trigger, instructions)
        now[0] += timedelta(seconds=seconds)
        return answer
    s.cm.before_compact = hooks
    s.ext.before_compact = hooks  # type: ignore[method-assign] # /compact --up-to N runs them itself


async def compact(s: AgentSession, args: str) -> str:
    console = Console(record=True, width=300, file=io.StringIO(), force_terminal=False)
    await COMMANDS["compact"].handler(s, args, console)
    return " ".join(console.export_text().split())


@pytest.mark.parametrize("args", ["", "--up-to 4"])
async def test_compact_reports_the_time_its_hooks_took_too(tmp_path: Path, args: str) -> None:
    pre = tmp_path / "pre.sh"
    pre.write_text("#!/usr/bin/env bash\ncat > /dev/null\necho 'keep the parser notes'\n")
    pre.chmod(0o755)
    events: list[Event] = []
    with FakeOpenAIServer(responder) as server:
        s = session(tmp_path, server, {"PreCompact": str(pre)}, events)
        try:
            for prompt in ("tell me about the parser", "and the lexer", "and the tests"):
                await s.run_turn(prompt)
            slow_hooks(s, HOOK_S)
            said = await compact(s, args)
        finally:
            await s.aclose()
    [done] = [e for e in events if e.layer == "compact" and e.trigger == "manual"]
    assert done.detail["hook_ms"] == HOOK_S * 1000
    assert done.duration_ms >= HOOK_S * 1000  # the compactor's own work on top
    assert re.search(r"compacted \(manual, [a-z_ ]+\): [\d,]+ → [\d,]+ tokens in 8\.\ds, 8\.0s of it in hooks",
                     said), said
    assert re.search(r" in 8\.\ds, 8\.0s of it in hooks", compact_line(done))
    line = compaction_end(done)  # print mode's stream-json says it apart too
    assert line is not None and line["hook_ms"] == HOOK_S * 1000 and line["duration_ms"] == done.duration_ms


async def test_quick_hooks_are_not_said_apart(tmp_path: Path) -> None:
    events: list[Event] = []
    with FakeOpenAIServer(responder) as server:
        s = session(tmp_path, server, {}, events)
        try:
            for prompt in ("tell me about the parser", "and the lexer", "and the tests"):
                await s.run_turn(prompt)
            slow_hooks(s, 0.2)
            said = await compact(s, "")
        finally:
            await s.aclose()
    [done] = [e for e in events if e.layer == "compact" and e.trigger == "manual"]
    assert done.detail["hook_ms"] == 200
    assert "of it in hooks" not in said and re.search(r"tokens in \d+ ms|tokens in \d\.\ds", said), said
    line = compaction_end(done)
    assert line is not None and line["hook_ms"] == 200
