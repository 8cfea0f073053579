"""Hooks, the plan and the instructions file around a real compaction (in-process session, fake server)."""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path

from compact_agent.agent.run.options import SessionOptions
from compact_agent.agent.run.runner import AgentSession
from compact_agent.config import Settings
from compact_agent.context.decisions.economics import Prices
from compact_agent.context.plumbing.events import Event
from tests.fakes.openai_server import FakeOpenAIServer, Reply, message_text, tool_results

from .scripted import is_summary_request

PLAN = [{"content": "write the parser", "status": "done"},
        {"content": "test the parser", "status": "in_progress"},
        {"content": "document it", "status": "pending"}]


def responder(req):
    if is_summary_request(req):
        return Reply.text("<summary>We planned and wrote the parser; tests are next.</summary>")
    if tool_results(req):
        return Reply.text("plan saved")
    if "make a plan" in req.last_user_text():
        return Reply.tools([("todo_write", {"todos": PLAN})])
    return Reply.text("ok " + "words " * 1500)


SOURCE = """src=$(sed -n 's/.*"source": *"\\([a-z]*\\)".*/\\1/p')"""  # the "source" field of stdin


def hook_script(tmp_path: Path, name: str, body: str) -> str:
    p = tmp_path / name
    p.write_text("#!/usr/bin/env bash\n" + body)
    p.chmod(0o755)
    return str(p)


def make_session(tmp_path: Path, server: FakeOpenAIServer, settings: Settings, events: list[Event],
                 changes: list | None = None) -> AgentSession:
    cwd = tmp_path / "project"
    cwd.mkdir(exist_ok=True)
    opts = SessionOptions(cwd=cwd, model="fake-model", base_url=server.base_url, api_key="k", context_window=32_000,
                          permission_mode="yes", home=tmp_path / "home", settings=settings)
    return AgentSession(opts, on_event=events.append,
                        on_change=(lambda tool, info: changes.append((tool, info))) if changes is not None else None)


def request_text(req) -> str:
    return "\n".join(message_text(m) for m in req.messages)


async def test_hooks_plan_and_instructions_survive_a_compaction(tmp_path):
    (tmp_path / "project").mkdir()
    (tmp_path / "project" / "AGENTS.md").write_text("PROJECT-RULE-42: run the tests with make test\n")
    pre = hook_script(tmp_path, "pre.sh", f'cat > {tmp_path}/pre.json\necho "HOOK-INSTR: keep the parser notes"\n')
    start = hook_script(tmp_path, "start.sh", f'{SOURCE}\necho "PROJECT-CONTEXT-$src"\n')
    post = hook_script(tmp_path, "post.sh", f"cat > {tmp_path}/post.json\n")
    settings = Settings(memory_enabled=False, hooks={
        "PreCompact": [pre, {"command": "sleep 5", "timeout": 0.3}],
        "SessionStart": start,
        "PostCompact": [{"command": post}, {"command": "exit 4"}],
    })
    events: list[Event] = []
    changes: list = []
    with FakeOpenAIServer(responder) as server:
        s = make_session(tmp_path, server, settings, events, changes)
        try:
            await s.run_turn("make a plan for the parser")
            first = server.requests[0]
            assert "PROJECT-CONTEXT-startup" in request_text(first)
            assert changes and changes[-1][0] == "todo_write" and changes[-1][1]["todos"] == PLAN
            assert json.loads((s.store.dir / "todos.json").read_text())["todos"] == PLAN
            await s.run_turn("and another thing")
            await s.run_turn("and one more")
            result = await s.compact("focus on tests")
            await s.run_turn("continue")
        finally:
            await s.aclose()
    summary_req = next(r for r in server.requests if is_summary_request(r))
    instruction = message_text(summary_req.messages[-1])
    assert "focus on tests" in instruction and "HOOK-INSTR: keep the parser notes" in instruction
    pre_in = json.loads((tmp_path / "pre.json").read_text())
    assert pre_in["trigger"] == "manual" and pre_in["custom_instructions"] == "focus on tests"
    post_in = json.loads((tmp_path / "post.json").read_text())
    assert post_in["tokens_before"] == result.tokens_before and post_in["tokens_after"] == result.tokens_after
    assert post_in["archive_path"] == str(result.archive) and post_in["strategy"] == "full"

    after = request_text(server.requests[-1])
    system = server.requests[-1].messages[0]
    assert system["role"] == "system" and "PROJECT-RULE-42" in message_text(system)  # instructions file: every request
    assert "[compact-agent: current plan]" in after
    assert "[x] write the parser" in after and "[~] test the parser" in after and "[ ] document it" in after
    assert "PROJECT-CONTEXT-compact" in after
    assert "make a plan for the parser" in after  # the user's words, carried by the summary message

    failed = [e for e in events if e.layer == "hook" and e.action == "failed"]
    assert len(failed) == 2
    assert any("timed out after 0.3s" in e.detail["error"] for e in failed)
    assert any("exited with 4" in e.detail["error"] for e in failed)
    assert all("\n" not in e.detail["error"] for e in failed)


async def test_resumed_session_keeps_the_plan_and_says_resume(tmp_path):
    start = hook_script(tmp_path, "start.sh", f'{SOURCE}\necho "SRC=$src"\n')
    settings = Settings(memory_enabled=False, hooks={"SessionStart": start})
    with FakeOpenAIServer(responder) as server:
        s = make_session(tmp_path, server, settings, [])
        await s.run_turn("make a plan for the parser")
        sid = s.session_id
        await s.aclose()
        opts = SessionOptions(cwd=tmp_path / "project", model="fake-model", base_url=server.base_url, api_key="k",
                              context_window=32_000, permission_mode="yes", home=tmp_path / "home",
                              settings=settings, session_id=sid)
        s2 = AgentSession(opts)
        try:
            assert [i.content for i in s2.ext.plan.items] == [p["content"] for p in PLAN]
            await s2.run_turn("go on")
        finally:
            await s2.aclose()
    assert "SRC=resume" in request_text(server.requests[-1])


async def test_only_a_hook_that_adds_instructions_turns_automatic_compactions_into_summaries(tmp_path):
    """The schedule prices a compaction as a record (no model call) until the PreCompact hooks
    have added instructions, which a record cannot follow; hooks that print nothing change nothing.
    What it learned outlives a restart: the session opened again prices summaries from the start."""
    cases = {"none": {}, "silent": {"PreCompact": "true", "SessionStart": "true"},
             "speaks": {"PreCompact": "echo keep the parser notes"}}
    seen, reopened = {}, {}
    with FakeOpenAIServer(responder) as server:
        for name, hooks in cases.items():
            (tmp_path / name).mkdir()
            events: list[Event] = []
            # No price on the user's wait: it scales with the round trips timed on the real clock.
            settings = Settings(memory_enabled=False, hooks=hooks, stall_wait_usd=0.0)
            s = make_session(tmp_path / name, server, settings, events)
            # Priced (at DeepSeek's prices): for a model whose prices are not known, collapse folds the
            # oldest rounds at 90% of the threshold (no compaction in these twelve steps), and a record
            # is kept only where it is no longer than a summary.
            s.cm.prices = s.cm.schedule.prices = Prices()
            try:
                for i in range(12):
                    await s.run_turn(f"step {i}")
                seen[name] = (s.cm.handler_instructs, [c.strategy for c in s.cm.compactions])
            finally:
                await s.aclose()
            again = AgentSession(replace(s.opts, session_id=s.session_id))
            try:
                reopened[name] = again.cm.handler_instructs
            finally:
                await again.aclose()
    assert seen["none"] == seen["silent"] and not seen["none"][0]
    assert "record" in seen["none"][1]
    assert seen["speaks"][0] and set(seen["speaks"][1]) == {"full"}
    assert reopened == {"none": False, "silent": False, "speaks": True}
