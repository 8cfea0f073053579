"""End to end through `compact-agent -p` against the strict fake OpenAI-compatible server."""

from __future__ import annotations

import socket

import pytest

from compact_agent.session.store import load_session_file
from tests.fakes.openai_server import FakeOpenAIServer, Reply, message_text

from .scripted import TASK_ID, FileTaskAgent, is_summary_request, make_project, task_text

N_FILES = 24
WINDOW = 16_000


# These tests are about the full summary path; tests/e2e/test_memory.py covers session memory, and
# test_records_... below the records written without a model.
FULL_SUMMARY = {"COMPACT_AGENT_MEMORY_ENABLED": "false", "COMPACT_AGENT_COLLAPSE_ENABLED": "false",
                "COMPACT_AGENT_COMPACTION_RECORDS": "false"}


def run_task(cli, server, *extra: str):
    return cli("-p", task_text(N_FILES), "--model", "fake-model", "--base-url", server.base_url,
               "--api-key", "sk-test", "--context-window", str(WINDOW), "--yes", "--output-format", "json",
               *extra, env=FULL_SUMMARY)


def test_long_task_compacts_keeps_the_task_and_finishes(cli):
    expected = make_project(cli.cwd, N_FILES)
    agent = FileTaskAgent(N_FILES)
    with FakeOpenAIServer(agent, window=WINDOW) as server:
        res = run_task(cli, server)
    assert res.code == 0, res.stderr
    out = res.json()
    assert out["result"] == f"FINAL SUM: {expected}"
    assert out["compactions"], "the task cannot fit the window without compaction"
    assert all(c["tokens_after"] < c["tokens_before"] for c in out["compactions"])
    assert not server.rejected, [r[2] for r in server.rejected]
    assert not agent.lost_task
    assert agent.summaries, "full compaction asks the model for a summary"

    reqs = server.requests
    for i, req in enumerate(reqs):
        if not is_summary_request(req):
            continue
        # The summary request shares the previous request's prefix (prompt-cache hit) and cannot act.
        prev = reqs[i - 1]
        assert req.messages[: len(prev.messages)] == prev.messages
        assert req.tool_choice == "none"
        assert req.tools == prev.tools
        # The next request carries the task and the file read last before compaction.
        after = reqs[i + 1]
        text = "\n".join(message_text(m) for m in after.messages)
        assert TASK_ID in text
        last_read = [m for m in prev.messages if m.get("role") == "tool"][-1]
        assert message_text(last_read).splitlines()[0] in text or "VALUE=" in text


def test_records_written_without_a_model_keep_the_task_and_cost_no_summary_request(cli):
    """Default settings (records priced against summaries): where a record of the steps is cheaper
    than a summary request, the compaction calls no model, and the next request still carries the
    task, the files the agent changed and the newest tool results."""
    import json

    expected = make_project(cli.cwd, N_FILES)
    agent = FileTaskAgent(N_FILES)
    with FakeOpenAIServer(agent, window=WINDOW) as server:
        res = cli("-p", task_text(N_FILES), "--model", "fake-model", "--base-url", server.base_url,
                  "--api-key", "sk-test", "--context-window", str(WINDOW), "--yes", "--output-format", "json",
                  env={"COMPACT_AGENT_COLLAPSE_ENABLED": "false"})
    assert res.code == 0, res.stderr
    assert res.json()["result"] == f"FINAL SUM: {expected}"
    assert not server.rejected and not agent.lost_task
    events = [json.loads(line) for p in (cli.home / "projects").glob("*/*/events.jsonl")
              for line in p.read_text().splitlines()]
    done = [e for e in events if e["layer"] == "compact" and e["action"] in ("full", "record")]
    records = [e for e in done if e["action"] == "record"]
    assert records, "a small window with short steps: records are cheaper than summaries here"
    summaries = [r for r in server.requests if is_summary_request(r)]
    assert len(summaries) == len(done) - len(records)  # a record makes no request
    after_record = 0
    for req in server.requests:
        text = "\n".join(message_text(m) for m in req.messages)
        if "<summary_record>\n- " in text and "compacted to keep the context small" in text:
            after_record += 1
            assert TASK_ID in text
            assert [m for m in req.messages if m.get("role") == "tool"], "the newest tool results are kept"
    assert after_record >= len(records)


def test_archive_holds_the_pre_compaction_session(cli):
    make_project(cli.cwd, N_FILES)
    with FakeOpenAIServer(FileTaskAgent(N_FILES), window=WINDOW) as server:
        res = run_task(cli, server)
    assert res.code == 0, res.stderr
    archives = cli.archives()
    assert archives
    first = load_session_file(archives[0])
    assert not first.boundaries  # the first archive is the original transcript, before any rewrite
    prompts = [p.content for m in first.messages for p in m.parts if p.part_kind == "user-prompt"]
    assert prompts and TASK_ID in prompts[0]
    reads = [p for m in first.messages for p in m.parts if p.part_kind == "tool-call"]
    assert len(reads) >= 3
    # The live session starts at a boundary naming the newest archive, and still loads.
    live = load_session_file(cli.sessions()[0])
    assert live.boundaries and live.boundaries[-1].archive == str(archives[-1])
    assert not live.warnings


def test_resume_with_continue(cli):
    seen = []

    def responder(req):
        seen.append(req)
        return Reply.text("noted" if len(seen) == 1 else "the word was " + (
            "PELICAN" if "PELICAN" in "\n".join(message_text(m) for m in req.messages) else "unknown"))

    with FakeOpenAIServer(responder) as server:
        args = ("--model", "fake-model", "--base-url", server.base_url, "--api-key", "k")
        first = cli("-p", "remember the magic word PELICAN", *args, "--output-format", "json")
        assert first.code == 0, first.stderr
        second = cli("-p", "what was the magic word?", *args, "--continue", "--output-format", "json")
    assert second.code == 0, second.stderr
    assert second.json()["result"] == "the word was PELICAN"
    assert second.json()["session_id"] == first.json()["session_id"]


def test_missing_key_is_one_line(cli):
    res = cli("-p", "hello")
    assert res.code != 0
    assert res.stderr.strip().count("\n") == 0
    assert "DEEPSEEK_API_KEY" in res.stderr


def test_unreachable_endpoint_is_one_line(cli):
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    res = cli("-p", "hello", "--model", "m", "--base-url", f"http://127.0.0.1:{port}/v1", "--api-key", "k")
    assert res.code != 0
    assert res.stderr.strip().count("\n") == 0, res.stderr
    assert "reach" in res.stderr


def test_a_password_in_the_base_url_is_never_shown(cli):
    """`--base-url http://user:pass@host/v1` is how some gateways take a password: an unreachable
    endpoint is still named, its password not, in the line, the JSON result and `config`."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    url = f"http://proxyuser:s3cretpw@127.0.0.1:{port}/v1"
    res = cli("-p", "hello", "--model", "m", "--base-url", url, "--api-key", "k")
    assert res.code != 0 and f"at http://proxyuser:***@127.0.0.1:{port}/v1/chat/completions" in res.stderr
    res = cli("-p", "hello", "--model", "m", "--base-url", url, "--api-key", "k", "--output-format", "json")
    assert "proxyuser:***@" in res.json()["error"]
    config = cli("--base-url", url, "config")
    assert "http://proxyuser:***@127.0.0.1" in config.stdout, config.stdout + config.stderr
    for out in (res, config):
        assert "s3cretpw" not in out.stdout + out.stderr
    assert not any("s3cretpw" in p.read_text(errors="replace") for p in cli.home.rglob("*") if p.is_file())


def test_bad_output_format(cli):
    res = cli("-p", "hello", "--output-format", "xml")
    assert res.code == 2
    assert "output-format" in res.stderr


def test_server_window_smaller_than_the_client_believes_still_finishes(cli):
    """Reactive path: the client is told 48K, the server holds 10K (the schedule keeps requests under 14K on its own); overflow answers are compacted and retried."""
    expected = make_project(cli.cwd, N_FILES)
    agent = FileTaskAgent(N_FILES)
    with FakeOpenAIServer(agent, window=10_000) as server:
        res = cli("-p", task_text(N_FILES), "--model", "fake-model", "--base-url", server.base_url,
                  "--api-key", "sk-test", "--context-window", "48000", "--yes", "--output-format", "json")
    assert res.code == 0, res.stderr
    out = res.json()
    assert out["result"] == f"FINAL SUM: {expected}"
    triggers = [c["trigger"] for c in out["compactions"]]
    assert "reactive" in triggers
    # At most one rejected request per overflow: after the first, the client learned the real window.
    overflows = [r for r in server.rejected if r[1] == 400]
    assert 1 <= len(overflows) <= 2
    assert not agent.lost_task


@pytest.mark.parametrize("priced", [True, False])
def test_all_layers_on_a_task_too_long_for_the_window(cli, priced):
    """Default pipeline (every layer): the task finishes, nothing is rejected, the task survives.
    Priced (the default), the layers act only where the prices say it pays; with pricing off the
    cheap layers do the work on their own triggers (their events are in the session's log)."""
    expected = make_project(cli.cwd, N_FILES)
    agent = FileTaskAgent(N_FILES)
    with FakeOpenAIServer(agent, window=WINDOW) as server:
        res = cli("-p", task_text(N_FILES), "--model", "fake-model", "--base-url", server.base_url,
                  "--api-key", "sk-test", "--context-window", str(WINDOW), "--yes", "--output-format", "json",
                  env={} if priced else {"COMPACT_AGENT_PRICED_COMPACTION": "false"})
    assert res.code == 0, res.stderr
    assert res.json()["result"] == f"FINAL SUM: {expected}"
    assert not server.rejected and not agent.lost_task
    assert max(r.prompt_tokens for r in server.requests) < WINDOW
    import json

    events = [json.loads(line) for p in (cli.home / "projects").glob("*/*/events.jsonl")
              for line in p.read_text().splitlines()]
    layers = {e["layer"] for e in events}
    assert "compact" in layers or {"microcompact", "collapse"} & layers
    if not priced:
        assert {"microcompact", "collapse"} <= layers


def test_a_run_stopped_by_max_turns_reports_what_it_spent(cli):
    """A turn stopped by --max-turns had paid for each of its requests, but its JSON result held only
    the error: no cost, no usage, no request count. It reports them as a finished run's does."""
    import json

    with FakeOpenAIServer(lambda req: Reply.tools([("glob", {"pattern": "*"})]), model="deepseek-chat") as server:
        res = cli("-p", "go", "--model", "deepseek-chat", "--base-url", server.base_url, "--api-key", "k",
                  "--max-turns", "3", "--output-format", "stream-json")
        sent = len(server.requests)
    last = json.loads(res.stdout.splitlines()[-1])
    assert res.code == 1 and last["subtype"] == "error_max_turns" and last["is_error"] is True, res.stdout
    assert sent == 3 and last["num_turns"] == 3 and last["usage"]["requests"] == 3
    assert last["usage"]["input_tokens"] > 0 and last["usage"]["output_tokens"] > 0
    assert isinstance(last["total_cost_usd"], float) and last["total_cost_usd"] > 0
    assert last["compactions"] == [] and last["permission_denials"] == []


def test_a_run_that_failed_before_its_session_reports_no_spending(cli):
    res = cli("-p", "hi", "--model", "fake-model", "--base-url", "http://127.0.0.1:9/v1", "--api-key", "k",
              "--output-format", "json", "--context-window", "10")
    out = res.json()
    assert res.code == 2 and out["is_error"] is True and out["total_cost_usd"] == 0 and out["num_turns"] == 0
    assert set(out["usage"].values()) == {0} and out["compactions"] == out["permission_denials"] == []
