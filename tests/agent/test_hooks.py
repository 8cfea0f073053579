"""Hooks run real shell commands: stdin JSON, stdout used, and every way a hook can misbehave."""

from __future__ import annotations

import json
import time
from pathlib import Path

import pytest

from compact_agent.agent.integrations.hooks import (
    HookCommand,
    HookConfigError,
    Hooks,
    parse_hooks,
    run_command,
)
from compact_agent.agent.tools.shell import exit_line
from tests.processes import ended


def script(tmp_path: Path, name: str, body: str) -> str:
    p = tmp_path / name
    p.write_text("#!/usr/bin/env bash\n" + body)
    p.chmod(0o755)
    return str(p)


async def test_stdin_is_the_payload_and_stdout_the_output(tmp_path):
    cmd = script(tmp_path, "echo.sh", 'cat > "$(dirname "$0")/stdin.json"; echo "keep the parser notes"\n')
    hooks = Hooks(parse_hooks({"PreCompact": cmd}), tmp_path, "s1", tmp_path / "s1.jsonl")
    runs = await hooks.run("PreCompact", "auto", {"trigger": "auto", "custom_instructions": "x"})
    assert [r.output for r in runs] == ["keep the parser notes"] and not runs[0].problem
    got = json.loads((tmp_path / "stdin.json").read_text())
    assert got == {"hook_event_name": "PreCompact", "session_id": "s1", "transcript_path": str(tmp_path / "s1.jsonl"),
                   "cwd": str(tmp_path), "trigger": "auto", "custom_instructions": "x"}


async def test_json_output_takes_additional_context(tmp_path):
    cmd = script(tmp_path, "j.sh", """echo '{"hookSpecificOutput": {"additionalContext": "from json"}}'\n""")
    run = await run_command(HookCommand("SessionStart", cmd), {}, tmp_path)
    assert run.output == "from json" and not run.problem


async def test_timeout_kills_the_process_group(tmp_path):
    """The hook's child touches the marker as soon as the hook's shell is gone: killed with it, it
    never does. Its pid is written first; the test waits for that process to end, not for a time."""
    marker, pid_file = tmp_path / "survived", tmp_path / "child.pid"
    child = f"(while kill -0 $$ 2>/dev/null; do sleep 0.01; done; touch {marker}) &"
    cmd = script(tmp_path, "slow.sh", f"{child}\necho $! > {pid_file}.new && mv {pid_file}.new {pid_file}\nsleep 30\n")
    t0 = time.monotonic()
    run = await run_command(HookCommand("PreCompact", cmd, timeout_s=0.3), {}, tmp_path)
    assert time.monotonic() - t0 < 1
    assert run.problem == "timed out after 0.3s: killed by SIGKILL, with its child processes" and run.output == ""
    assert exit_line(-9, 0.3) == f"exit code: 137 ({run.problem})"  # as a bash call's result says it
    assert ended(int(pid_file.read_text())), "the hook's child process outlived the timeout"
    assert not marker.exists(), "the hook's child process outlived the timeout"


async def test_nonzero_exit_is_one_line_with_stderr(tmp_path):
    cmd = script(tmp_path, "fail.sh", "echo 'useful output'\necho 'database is locked' >&2\necho more >&2\nexit 3\n")
    run = await run_command(HookCommand("PostCompact", cmd), {}, tmp_path)
    assert run.problem == "exited with 3: database is locked" and run.output == ""


@pytest.mark.parametrize("body, problem", [
    ("printf '\\xff\\xfe\\x00garbage'", "not UTF-8"),
    ("printf 'ok\\x00\\x01\\x02'", "binary"),
    ("""echo '{"decision": "block"}'""", "without additionalContext"),
])
async def test_garbage_output_is_refused(tmp_path, body, problem):
    cmd = script(tmp_path, "g.sh", body + "\n")
    run = await run_command(HookCommand("SessionStart", cmd), {}, tmp_path)
    assert problem in run.problem and run.output == ""


async def test_missing_command_is_a_nonzero_exit(tmp_path):
    run = await run_command(HookCommand("SessionStart", "no-such-command-xyz"), {}, tmp_path)
    assert run.problem.startswith("exited with 127")


async def test_matchers_select_hooks(tmp_path):
    table = {"SessionStart": [{"matcher": "compact", "hooks": [{"type": "command", "command": "echo C"}]},
                              {"matcher": "startup|resume", "command": "echo S"}]}
    hooks = Hooks(parse_hooks(table), tmp_path, "s", tmp_path / "s.jsonl")
    assert [r.output for r in await hooks.run("SessionStart", "compact", {})] == ["C"]
    assert [r.output for r in await hooks.run("SessionStart", "resume", {})] == ["S"]


def test_bad_config_is_one_line():
    with pytest.raises(HookConfigError, match="unknown hook event"):
        parse_hooks({"PreCompactt": "x"})
    with pytest.raises(HookConfigError, match="timeout"):
        parse_hooks({"PreCompact": [{"command": "x", "timeout": -1}]})
    assert parse_hooks({"PreCompact": [{"command": "x", "timeout": 3}]}, 10)[0].timeout_s == 3


def test_an_unknown_event_is_quoted_as_written():
    """Python's form of it put an event holding a quote in double quotes and doubled each backslash."""
    with pytest.raises(HookConfigError) as info:
        parse_hooks({"it's\\x": "x"})
    assert str(info.value) == "unknown hook event 'it's\\x'; expected one of PreCompact, PostCompact, SessionStart"


def test_a_groups_timeout_is_its_hooks_that_give_none():
    """`[[hooks.PreCompact]]` with `timeout = 45` beside `matcher` and `hooks` was taken and ignored:
    its hooks ran at hook_timeout_s (10 s), and `timeout = 9999` or `"x"` there passed unsaid."""
    group = {"matcher": "auto", "timeout": 45, "hooks": [{"command": "a"}, {"command": "b", "timeout": 5}, "c"]}
    assert [(h.command, h.matcher, h.timeout_s) for h in parse_hooks({"PreCompact": [group]}, 10)] == \
        [("a", "auto", 45.0), ("b", "auto", 5.0), ("c", "auto", 45.0)]
    assert parse_hooks({"PreCompact": [{"hooks": [{"command": "a"}]}]}, 20)[0].timeout_s == 20  # none: the default
    for timeout, said in ((9999, "timeout must be at most 600 seconds, not 9999"),
                          (float("inf"), "timeout must be at most 600 seconds, not inf"),
                          ("x", "timeout must be a positive number of seconds"),
                          (0, "timeout must be a positive number of seconds")):
        with pytest.raises(HookConfigError) as e:  # capped as a hook's own, even where each hook gives one
            parse_hooks({"PreCompact": [{"timeout": timeout, "hooks": [{"command": "a", "timeout": 5}]}]})
        assert str(e.value) == f"hooks.PreCompact: {said}"


def test_a_group_with_its_own_command_is_said():
    """A table with both `command` and `hooks` ran its hooks and dropped its command without a word."""
    with pytest.raises(HookConfigError) as e:
        parse_hooks({"PreCompact": [{"command": "save-notes", "hooks": [{"command": "a"}]}]})
    assert str(e.value) == "hooks.PreCompact: a table with hooks = [...] runs those; move its command into them"


async def test_hooks_run_without_the_provider_key(tmp_path, monkeypatch):
    """A hook is a command like the bash tool's: it gets the scrubbed environment, not the key."""
    from compact_agent import secrets

    key = "sk-hook-0123456789abcdef0123"
    monkeypatch.setenv("OPENAI_API_KEY", key)
    monkeypatch.setenv("MY_COPY_OF_THE_KEY", key)
    monkeypatch.setenv("HOOK_VISIBLE", "plain-value")
    secrets.register(key)
    run = await run_command(HookCommand("SessionStart", "env"), {}, tmp_path)
    assert "HOOK_VISIBLE=plain-value" in run.output
    assert "OPENAI_API_KEY" not in run.output and key not in run.output and "MY_COPY_OF_THE_KEY" not in run.output


@pytest.mark.parametrize("body", [
    "echo 'not during the release' >&2\nexit 2\n",
    """echo '{"decision": "block", "reason": "not during the release"}'\n""",
])
async def test_a_precompact_hook_blocks_with_exit_2_or_a_block_decision(tmp_path, body):
    cmd = script(tmp_path, "no.sh", body)
    run = await run_command(HookCommand("PreCompact", cmd), {}, tmp_path)
    assert run.blocked and run.reason == "not during the release" and not run.problem and run.output == ""
    # Only PreCompact can block: elsewhere exit 2 is a failure like any other, and a decision is ignored.
    other = await run_command(HookCommand("PostCompact", cmd), {}, tmp_path)
    assert not other.blocked and other.problem


async def test_the_session_raises_the_block_with_the_hooks_reason(tmp_path):
    from compact_agent.agent.run.extensions import SessionExtensions
    from compact_agent.context import CompactionBlocked

    cmd = script(tmp_path, "no.sh", "echo 'tests are running' >&2\nexit 2\n")
    ext = SessionExtensions.__new__(SessionExtensions)  # only its hooks: no session around it
    ext.hooks = Hooks(parse_hooks({"PreCompact": cmd}), tmp_path, "s1", tmp_path / "s1.jsonl")
    ext.session = None  # type: ignore[assignment]
    with pytest.raises(CompactionBlocked) as caught:
        await ext.before_compact("auto", "")
    reason = caught.value.reason
    assert reason.startswith("the PreCompact hook `") and reason.endswith("`: tests are running")


def test_a_failed_hook_is_said_once_as_a_hook():
    """A configured hook's failure names its event and command: the line said 'hook: SessionStart
    hook `exit 3` exited with 3', hook twice. A library handler's error keeps the word."""
    from compact_agent.agent.run.stream_events import problem_line
    from compact_agent.context.plumbing.events import Event

    said = problem_line(Event("hook", "failed", detail={"hook": "SessionStart", "command": "exit 3",
                                                         "error": "SessionStart hook `exit 3` exited with 3"}))
    assert said == "SessionStart hook `exit 3` exited with 3"
    assert problem_line(Event("hook", "failed", detail={"error": "boom"})) == "hook: boom"


async def test_a_hook_stopped_while_it_runs_is_reaped_before_the_run_ends(tmp_path, monkeypatch):
    """Ctrl-C while a hook runs: its exit is seen before the cancellation leaves run_command (a
    stopped `-p` run closes its event loop next, and asyncio's child watcher wrote "Loop ... that
    handles pid ... is closed" to the user's stderr if it found the exit after that)."""
    import asyncio

    from compact_agent.agent.tools import shell_groups

    real, procs = asyncio.create_subprocess_exec, []

    async def kept(*args, **kwargs):
        procs.append(await real(*args, **kwargs))
        return procs[-1]

    monkeypatch.setattr(asyncio, "create_subprocess_exec", kept)
    task = asyncio.ensure_future(run_command(HookCommand("PreCompact", "sleep 123"), {}, tmp_path))
    deadline = time.monotonic() + 60
    while not shell_groups._running and time.monotonic() < deadline:
        await asyncio.sleep(0.01)
    [proc] = procs
    assert proc.returncode is None  # running
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    assert proc.returncode == -9
