"""On Anthropic, a summary made before the run's first request (`-c -p /compact`, or /compact as soon as
a session is resumed) is sent with the cache settings a turn's request gets, and its `tool_choice`.

The summary request takes the last main request's settings, and a new process has sent none yet: it
went out with no `cache_control` at all, so it read nothing of what the session's last request had
just cached and paid the whole conversation at the full input price (and cached none of it for a
summary asked again). The session's own model settings are now the manager's before the first
request (first_request.py); and its `tool_choice` is the turns' own, which Anthropic's cache of the
messages needs (summarizer.py, `unable_to_act`). Against the fake Anthropic server, over HTTP.
"""

from __future__ import annotations

import json

from compact_agent.context.compaction.summary_prompt import NO_TOOLS_PREAMBLE
from tests.e2e.conftest import Cli
from tests.fakes.anthropic_server import AnthropicReply, FakeAnthropicServer, MessagesRequest

SUMMARY = NO_TOOLS_PREAMBLE.splitlines()[0]


def is_summary(req: MessagesRequest) -> bool:
    return SUMMARY in req.last_user_text()


def reply(req: MessagesRequest) -> AnthropicReply:
    if is_summary(req):
        return AnthropicReply("<analysis>draft</analysis><summary>1. Primary Request: the queue's design."
                              "</summary>")
    return AnthropicReply("The queue keeps its jobs in order. " * 120)


def test_a_summary_before_the_runs_first_request_is_marked_for_the_cache(cli: Cli) -> None:
    with FakeAnthropicServer(reply) as server:
        env = {"ANTHROPIC_BASE_URL": server.base_url, "ANTHROPIC_API_KEY": "sk-ant-test"}
        model = ("--model", "claude-sonnet-4-5")
        for prompt in ("explain the queue", "and its retries", "and its limits"):
            said = cli(*(("-c",) if server.requests else ()), "-p", prompt, *model, env=env)
            assert said.code == 0, said.stderr
        compacted = cli("-c", "-p", "/compact", *model, env=env)
    assert compacted.code == 0, compacted.stderr
    main = [r for r in server.requests if not is_summary(r)]
    summaries = [r for r in server.requests if is_summary(r)]
    assert len(main) == 3 and len(summaries) == 1, [r.last_user_text()[:40] for r in server.requests]
    summary = summaries[0]
    assert "cache_control" in json.dumps(summary.body["messages"]), summary.body  # as each turn's request
    assert all("cache_control" in json.dumps(r.body["messages"]) for r in main)
    assert summary.body.get("tool_choice") == main[-1].body.get("tool_choice"), (summary.body.get("tool_choice"),
                                                                                main[-1].body.get("tool_choice"))
