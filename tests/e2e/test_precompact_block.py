"""A PreCompact hook that says no (exit 2, or `{"decision": "block"}`), as Claude Code's hooks do:
`/compact` says it was blocked and why, an automatic compaction is skipped, and no request is sent
over the window (the fake server refuses any that would be, prompt plus answer room)."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.fakes.openai_server import FakeOpenAIServer, Reply

from .scripted import FileTaskAgent, is_summary_request, make_project, task_text

N_FILES = 24
WINDOW = 16_000
FULL_SUMMARY = {"COMPACT_AGENT_MEMORY_ENABLED": "false", "COMPACT_AGENT_COLLAPSE_ENABLED": "false",
                "COMPACT_AGENT_COMPACTION_RECORDS": "false"}
BLOCKERS = {
    "exit 2": 'cat > /dev/null\necho "not while the release is being cut" >&2\nexit 2\n',
    "json": 'cat > /dev/null\necho \'{"decision": "block", "reason": "not while the release is being cut"}\'\n',
}


def blocking_hook(home: Path, body: str) -> Path:
    """The user config names a PreCompact hook script with `body`; returns the script."""
    home.mkdir(parents=True, exist_ok=True)
    script = home / "precompact.sh"
    script.write_text("#!/usr/bin/env bash\n" + body)
    script.chmod(0o755)
    (home / "config.toml").write_text(f'[hooks]\nPreCompact = "{script}"\n')
    return script


@pytest.mark.parametrize("how", list(BLOCKERS))
def test_a_blocked_auto_compaction_in_print_mode_never_sends_a_request_over_the_window(cli, how):
    blocking_hook(cli.home, BLOCKERS[how])
    expected = make_project(cli.cwd, N_FILES)
    agent = FileTaskAgent(N_FILES)
    with FakeOpenAIServer(agent, window=WINDOW) as server:
        res = cli("-p", task_text(N_FILES), "--model", "fake-model", "--base-url", server.base_url,
                  "--api-key", "sk-test", "--context-window", str(WINDOW), "--yes", "--output-format", "json",
                  env=FULL_SUMMARY)
    assert res.code == 0, res.stderr
    out = res.json()
    assert out["compactions"] == [] and not agent.summaries  # every compaction was blocked
    assert out["result"] == f"FINAL SUM: {expected}"
    assert not server.rejected, [r[2] for r in server.rejected]  # none over the window, none refused
    said = " ".join(res.stderr.split())
    assert "compaction (auto) blocked by the PreCompact hook" in said
    assert "not while the release is being cut" in said
    assert "this request is shrunk to fit the window instead" in said
    assert "Traceback" not in res.stderr


@pytest.mark.parametrize("how", list(BLOCKERS))
def test_compact_in_print_mode_says_the_hook_blocked_it_and_why(cli, how):
    blocking_hook(cli.home, BLOCKERS[how])

    def answer(req):
        return Reply.text("<summary>should never be asked</summary>" if is_summary_request(req) else "ok " * 400)

    with FakeOpenAIServer(answer) as server:
        base = ("--model", "fake-model", "--base-url", server.base_url, "--api-key", "sk-test")
        for cont in ([], ["-c"], ["-c"]):
            assert cli(*cont, "-p", "tell me more", *base).code == 0
        before = cli.sessions()[0].read_text()
        res = cli("-c", "-p", "/compact", *base)
    assert res.code == 0, res.stderr
    said = " ".join(res.stdout.split())
    assert "not compacted: blocked by the PreCompact hook" in said
    assert "not while the release is being cut; nothing was changed" in said
    assert not any(is_summary_request(r) for r in server.requests)
    assert cli.sessions()[0].read_text() == before and cli.archives() == []
