"""A pause of automatic compaction outlives the run that made it: `-c` soon after goes on paused
(until its cool-down ends, a minute after the third failure: breaker_retry.py, tested with an
injected clock in tests/context/test_breaker_retries_after_cool_down.py), says so at start, and
/status says so, when it is tried again, and how to resume it. After a `-p` run whose automatic compactions
failed three times in a row, `-c -p /status` said 'auto-compaction on', and the next run tried (and
failed, a summary request each) three times again. A /compact that succeeds, or
`/compact --resume-auto`, resumes it, for the runs after too."""

from __future__ import annotations

import json
import re

from tests.fakes.openai_server import FakeOpenAIServer, Reply

from .scripted import FileTaskAgent, is_summary_request, make_project, task_text

N = 30  # reads enough for three compactions to be tried (previews of reads are small since d78f4078)
WINDOW = "12000"
# Nothing but a summary to fall on, and no clearing of old results (L3) to keep the context under the
# threshold instead: the breaker is what is tested.
FULL_SUMMARY = {"COMPACT_AGENT_MEMORY_ENABLED": "false", "COMPACT_AGENT_COLLAPSE_ENABLED": "false",
                "COMPACT_AGENT_COMPACTION_RECORDS": "false", "COMPACT_AGENT_MICROCOMPACT_TRIGGER": "1000"}
PAUSED = re.compile(r"auto-compaction paused: the last 3 tried in a row failed or would not shrink the context; it is "
                    r"tried again in (\d+ seconds|1 minute), and resumes if that succeeds \(a /compact that succeeds, "
                    r"or /compact --resume-auto, resumes it now\)")
SAID_AT_START = re.compile(r"automatic compaction is paused in this session: the last 3 tried in a row failed or would "
                           r"not shrink the context; it is tried again in (\d+ seconds|1 minute); a /compact that "
                           r"succeeds resumes it, as does /compact --resume-auto")


def words(text: str) -> str:
    return " ".join(text.split())


def tripped(cli, server: FakeOpenAIServer, agent: FileTaskAgent) -> None:
    """A -p run whose summary requests all fail: three automatic compactions fail, the breaker opens."""
    make_project(cli.cwd, N)
    res = cli("-p", task_text(N), "--model", "fake-model", "--base-url", server.base_url, "--api-key", "k",
              "--context-window", WINDOW, "--yes", "--verbose", env=FULL_SUMMARY)
    assert res.code == 0, res.stderr
    assert "so automatic compaction is paused" in words(res.stderr), res.stderr


def summaries_asked(server: FakeOpenAIServer) -> int:
    return sum(1 for r in server.requests if is_summary_request(r))


def breaking(agent: FileTaskAgent, broken: list[bool]):
    def responder(req):
        if is_summary_request(req):
            if broken[0]:
                return Reply.error(400, {"error": {"message": "summaries are broken today",
                                                   "type": "invalid_request_error"}})
            return agent.summarize(req)
        return agent(req)
    return responder


def test_a_paused_breaker_stays_paused_in_the_next_run_until_resumed(cli):
    agent, broken = FileTaskAgent(N), [True]
    with FakeOpenAIServer(breaking(agent, broken), window=128_000) as server:
        tripped(cli, server, agent)
        asked = summaries_asked(server)
        assert asked >= 3
        status = cli("-c", "-p", "/status", "--api-key", "k", env=FULL_SUMMARY)
        assert status.code == 0, status.stderr
        assert PAUSED.search(words(status.stdout)), status.stdout
        assert "auto-compaction on" not in status.stdout
        assert SAID_AT_START.search(words(status.stderr)), status.stderr
        # A turn of the next run that takes the context over the threshold tries no automatic compaction.
        again = cli("-c", "-p", "note this too: " + "word " * 2_400, "--api-key", "k", "--yes", env=FULL_SUMMARY)
        assert again.code == 0, again.stderr
        assert summaries_asked(server) == asked, "a paused breaker asked for a summary"
        resumed = cli("-c", "-p", "/compact --resume-auto", "--api-key", "k", env=FULL_SUMMARY)
        assert resumed.code == 0, resumed.stderr
        assert words(resumed.stdout) == "auto-compaction resumed: the next request over the threshold is compacted again"
        after = cli("-c", "-p", "/status", "--api-key", "k", env=FULL_SUMMARY)
        nothing = cli("-c", "-p", "/compact --resume-auto", "--api-key", "k", env=FULL_SUMMARY)
    assert "auto-compaction on" in words(after.stdout), after.stdout
    assert "paused" not in after.stderr, after.stderr
    assert words(nothing.stdout) == "auto-compaction is on; nothing to resume"
    [layers] = (cli.home / "projects").glob("*/*/layers.json")
    assert "failures" not in json.loads(layers.read_text()).get("learned", {})


def test_a_compact_that_succeeds_resumes_it_for_the_runs_after(cli):
    agent, broken = FileTaskAgent(N), [True]
    with FakeOpenAIServer(breaking(agent, broken), window=128_000) as server:
        tripped(cli, server, agent)
        broken[0] = False
        compacted = cli("-c", "-p", "/compact", "--api-key", "k", env=FULL_SUMMARY)
        status = cli("-c", "-p", "/status", "--api-key", "k", env=FULL_SUMMARY)
    assert compacted.code == 0, compacted.stderr
    assert "compacted (manual" in words(compacted.stdout), compacted.stdout
    assert "auto-compaction on" in words(status.stdout), status.stdout
    assert "paused" not in status.stderr, status.stderr


def test_resume_auto_goes_alone(cli):
    with FakeOpenAIServer(lambda req: Reply.text("ok")) as server:
        assert cli("-p", "hello", "--model", "fake-model", "--base-url", server.base_url, "--api-key", "k").code == 0
        res = cli("-c", "-p", "/compact keep the tests --resume-auto", "--api-key", "k")
    assert res.code == 2, res.stderr
    assert ("--resume-auto goes alone: /compact --resume-auto resumes automatic compaction and compacts nothing"
            in words(res.stderr)), res.stderr
    assert "Traceback" not in res.stderr
