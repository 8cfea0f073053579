"""`-p --output-format stream-json`: one JSON event per line, through the real CLI and a config file."""

from __future__ import annotations

import json

from tests.fakes.openai_server import FakeOpenAIServer

from .scripted import FileTaskAgent, make_project, task_text

N = 14
WINDOW = 12_000


def test_stream_json_events_and_a_failing_hook_from_the_config_file(cli):
    expected = make_project(cli.cwd, N, filler_chars=3_000)
    cli.home.mkdir(parents=True, exist_ok=True)
    (cli.home / "config.toml").write_text(
        "memory_enabled = false\n"
        "collapse_enabled = false\n"
        "[hooks]\n"
        'PreCompact = "echo the hook broke >&2; exit 1"\n')
    with FakeOpenAIServer(FileTaskAgent(N), window=WINDOW) as server:
        res = cli("-p", task_text(N), "--model", "fake-model", "--base-url", server.base_url, "--api-key", "k",
                  "--context-window", str(WINDOW), "--yes", "--output-format", "stream-json")
    assert res.code == 0, res.stderr
    events = [json.loads(line) for line in res.stdout.splitlines()]
    types = [e["type"] for e in events]
    assert types[-1] == "result" and events[-1]["result"] == f"FINAL SUM: {expected}"

    calls = [e for e in events if e["type"] == "tool_call"]
    results = [e for e in events if e["type"] == "tool_result"]
    assert len(calls) == N and calls[0]["tool"] == "read_file" and calls[0]["args"] == {"path": "data/file_00.txt"}
    assert [r["id"] for r in results] == [c["id"] for c in calls]
    assert results[0]["content"].startswith("     1\tVALUE=") and results[0]["error"] is False
    assert "".join(e["text"] for e in events if e["type"] == "text").count("PROGRESS") >= N - 1

    starts = [e for e in events if e["type"] == "compaction_start"]
    ends = [e for e in events if e["type"] == "compaction_end"]
    assert starts and len(starts) == len(ends)
    assert all(e["ok"] and e["tokens_after"] < e["tokens_before"] and e["archive"] for e in ends)
    for s, e in zip(starts, ends, strict=True):
        assert types.index("compaction_start") < types.index("compaction_end")
        assert s["trigger"] == e["trigger"]

    # The broken hook is reported, once per compaction, in one line each; compaction went on.
    hook_lines = [line for line in res.stderr.splitlines() if "PreCompact hook" in line]
    assert len(hook_lines) == len(ends) and "exited with 1: the hook broke" in hook_lines[0]
