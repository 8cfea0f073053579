"""Provider failures, injected by the fake server: bounded retries, one clear line, session intact.

Who retries (see compact_agent/agent/run/retry.py): the SDK retries 429/5xx/connection errors twice
with backoff, honouring retry-after; our TransientRetry retries malformed (non-JSON) replies twice.
So a failure that persists costs exactly 3 requests, and a turn that fails leaves the session
loadable with the user's prompt saved. The circuit breaker counts compaction failures only.
"""

from __future__ import annotations

import re
import time
from pathlib import Path
from typing import Any

import pytest

from compact_agent.agent.run.runner import AgentSession
from compact_agent.config import Settings
from compact_agent.error_text import describe_error
from compact_agent.session.store import load_session_file
from tests.e2e.scripted import FileTaskAgent, is_summary_request, make_project, task_text
from tests.fakes.openai_server import ChatRequest, FakeOpenAIServer, Fault, Reply, message_text

from .common import l5_settings, session


def echo(req: ChatRequest) -> Reply:
    return Reply.text("echo: " + " | ".join(message_text(m) for m in req.messages if m.get("role") == "user"))


def no_waiting(s: AgentSession) -> list[float]:
    """Our retries record their delays instead of sleeping them (the SDK's are real)."""
    waited: list[float] = []

    async def sleep(delay: float) -> None:
        waited.append(delay)

    s.retry.sleep = sleep
    return waited


async def typed_turn(s: AgentSession, text: str, **kwargs: Any) -> None:
    """A turn on a message the user typed: saved the moment it is entered, as the REPL and -p save it
    (ui/repl_building.keep_typed), then sent. A new session whose first request fails keeps it;
    one holding only a request the program made (/init) is removed as it closes (session/unused.py)."""
    s.store.save_prompt(text)
    await s.run_turn(text, **kwargs)


def prompts_saved(s: AgentSession) -> list[str]:
    return [p.content for m in s.store.load().messages for p in m.parts if p.part_kind == "user-prompt"]


async def test_429_waits_what_retry_after_says(tmp_path: Path) -> None:
    seen: list[float] = []

    def faults(req: ChatRequest, attempt: int) -> Fault | None:
        seen.append(time.monotonic())
        return Fault.rate_limit(retry_after=1.0) if attempt == 0 else None

    with FakeOpenAIServer(echo, faults=faults) as server:
        s = session(tmp_path / "h", tmp_path / "p", server)
        out = await s.run_turn("hello")
        await s.aclose()
    assert out.output == "echo: hello"
    assert len(seen) == 2 and seen[1] - seen[0] >= 0.95  # the SDK waited the server's retry-after


# A short retry-after-ms keeps the SDK's waits (tested above) out of the suite's time; the counts are real.
QUICK = {"retry-after-ms": "20"}
PERSISTENT = {
    "429": (lambda: Fault.rate_limit(0.0), 3, "rate-limiting"),
    "500": (lambda: Fault.http(500, headers=QUICK), 3, "HTTP 500"),
    "502": (lambda: Fault.http(502, headers=QUICK), 3, "HTTP 502"),
    "503": (lambda: Fault.http(503, headers=QUICK), 3, "HTTP 503"),
    "connection dropped": (Fault.drop, 3, "cannot reach"),
    "reset mid-body": (Fault.reset_mid_stream, 3, "reply was cut off mid-way"),
    "malformed JSON": (Fault.malformed_json, 3, "not valid JSON (at character "),
}


@pytest.mark.parametrize("name", list(PERSISTENT))
async def test_a_persistent_failure_is_bounded_one_line_and_loses_nothing(tmp_path: Path, name: str) -> None:
    make_fault, attempts, words = PERSISTENT[name]
    broken = {"on": False}

    def faults(req: ChatRequest, attempt: int) -> Fault | None:
        return make_fault() if broken["on"] else None

    with FakeOpenAIServer(echo, faults=faults) as server:
        s = session(tmp_path / "h", tmp_path / "p", server)
        waited = no_waiting(s)
        await s.run_turn("first")
        broken["on"] = True
        before = len(server.requests)
        t0 = time.monotonic()
        with pytest.raises(Exception) as info:
            await s.run_turn("second")
        took = time.monotonic() - t0
        assert len(server.requests) - before == attempts  # bounded: SDK (or our) retries, not more
        assert took < 6  # the SDK's backoff (0.5 s + 1 s at most here)
        assert waited in ([], [1.0, 2.0])  # ours: only for the malformed reply
        line = describe_error(info.value)
        assert "\n" not in line and words in line and "session is saved" in line, line
        # Intact: the prompt of the failed turn is saved, and the next turn carries on from it.
        assert prompts_saved(s) == ["first", "second"]
        assert s.cm.failures == 0  # a failed normal request is not a compaction failure
        broken["on"] = False
        out = await s.run_turn("third")
        await s.aclose()
    assert out.output == "echo: first | second | third"
    assert not [r for r in server.rejected if r[1] == 400]  # the history stayed provider-valid


@pytest.mark.parametrize("fault", [Fault.rate_limit(0.0), Fault.http(502, headers=QUICK), Fault.drop(),
                                   Fault.reset_mid_stream(),
                                   Fault.malformed_json()], ids=["429", "502", "drop", "reset", "malformed"])
async def test_a_passing_failure_is_retried_and_the_turn_succeeds(tmp_path: Path, fault: Fault) -> None:
    with FakeOpenAIServer(echo, faults=lambda r, a: fault if a == 0 else None) as server:
        s = session(tmp_path / "h", tmp_path / "p", server)
        no_waiting(s)
        out = await s.run_turn("hello")
        await s.aclose()
    assert out.output == "echo: hello" and len(server.requests) == 2


async def test_malformed_reply_retries_are_events(tmp_path: Path) -> None:
    with FakeOpenAIServer(echo, faults=lambda r, a: Fault.malformed_json() if a < 2 else None) as server:
        s = session(tmp_path / "h", tmp_path / "p", server)
        waited = no_waiting(s)
        await s.run_turn("hello")
        await s.aclose()
    assert waited == [1.0, 2.0]  # exponential backoff between our attempts
    retries = [e for e in s.store.event_log.read() if e.get("layer") == "provider" and e.get("action") == "retry"]
    assert [e["detail"]["attempt"] for e in retries] == [1, 2]
    assert [e["detail"]["delay_s"] for e in retries] == [1.0, 2.0]
    # In words (stream-json prints the event): it was "ModelAPIError: Failed to decode response as JSON: …"
    for e in retries:
        assert re.fullmatch(r"the model endpoint sent a reply that is not valid JSON \(at character \d+\)",
                            e["detail"]["error"]), e


async def test_a_slow_provider_times_out_within_the_bound(tmp_path: Path) -> None:
    settings = Settings(request_timeout_s=0.5, max_retries=1)
    with FakeOpenAIServer(echo, faults=lambda r, a: Fault.slow(5.0)) as server:
        s = session(tmp_path / "h", tmp_path / "p", server, settings=settings)
        t0 = time.monotonic()
        with pytest.raises(Exception) as info:
            await typed_turn(s, "hello")
        took = time.monotonic() - t0
        await s.aclose()
        server.stopping.set()
    assert len(server.requests) == 2  # one attempt and the SDK's one retry; ours does not repeat timeouts
    assert took < 4
    line = describe_error(info.value)
    assert "did not answer in time" in line and "\n" not in line
    assert prompts_saved(s) == ["hello"]


@pytest.mark.parametrize("streamed", [False, True], ids=["json", "stream"])
async def test_a_trickling_provider_ends_within_the_deadline(tmp_path: Path, streamed: bool) -> None:
    """A server that sends a filler every 0.1 s (whitespace before the JSON, or SSE comments) for up
    to 30 s never lets a per-read timeout fire; each attempt still ends at the deadline."""
    settings = Settings(request_timeout_s=0.5, max_retries=1)
    with FakeOpenAIServer(echo, faults=lambda r, a: Fault.trickle(every=0.1, seconds=30)) as server:
        s = session(tmp_path / "h", tmp_path / "p", server, settings=settings)
        shown: list[str] = []
        t0 = time.monotonic()
        with pytest.raises(Exception) as info:
            await typed_turn(s, "hello", on_text=shown.append if streamed else None)
        took = time.monotonic() - t0
        await s.aclose()
    attempts = len(server.requests)
    # Not streamed, the deadline is a timeout the SDK retries (once, as configured); streamed, the
    # headers had arrived, so the SDK had already handed the stream over and nothing retries it.
    assert attempts == (1 if streamed else 2)
    assert took < attempts * 0.5 + 2.5, took  # 2 attempts of 0.5 s, the SDK's backoff, start-up
    line = describe_error(info.value)
    assert "did not answer in time" in line and "\n" not in line, line
    assert prompts_saved(s) == ["hello"] and shown == []


async def test_stream_cut_after_output_began_ends_the_turn_cleanly(tmp_path: Path) -> None:
    """Once text reached the user no hook can rewind the stream: one line, nothing saved is lost."""
    cut = {"on": True}
    with FakeOpenAIServer(echo, faults=lambda r, a: Fault.reset_mid_stream() if cut["on"] else None) as server:
        s = session(tmp_path / "h", tmp_path / "p", server)
        shown: list[str] = []
        with pytest.raises(Exception) as info:
            await s.run_turn("hello", on_text=shown.append)
        assert "the provider's reply was cut off mid-way" in describe_error(info.value)
        cut["on"] = False
        out = await s.run_turn("again", on_text=shown.append)
        await s.aclose()
    assert out.output == "echo: hello | again"
    assert prompts_saved(s) == ["hello", "again"]


async def test_a_reply_without_finish_reason_is_accepted_and_recorded(tmp_path: Path) -> None:
    """Decision: accepted (pydantic-ai fills in `stop`; the body arrived whole), but never silently."""
    for stream in (False, True):
        with FakeOpenAIServer(echo, faults=lambda r, a: Fault.no_finish()) as server:
            s = session(tmp_path / f"h{stream}", tmp_path / "p", server)
            out = await s.run_turn("hello", on_text=(lambda t: None) if stream else None)
            await s.aclose()
        assert out.output == "echo: hello"
        events = [e for e in s.store.event_log.read() if e.get("layer") == "provider"]
        assert [e["action"] for e in events] == ["no_finish_reason"]


# -- compaction requests: summaries that fail, are empty or try to act ------------------------------------


def _task_session(tmp_path: Path, server: FakeOpenAIServer, n: int):  # noqa: ANN202
    make_project(tmp_path / "p", n)
    return session(tmp_path / "h", tmp_path / "p", server, window=12_000, settings=l5_settings())


async def _run_with_summaries(tmp_path: Path, summaries: list[Reply | None], n: int = 12):
    """Run the file task; the k-th summary request gets summaries[k] (None: the scripted good one)."""
    agent = FileTaskAgent(n)
    asked: list[ChatRequest] = []

    def responder(req: ChatRequest) -> Reply:
        last = message_text(req.messages[-1]) if req.messages else ""
        if is_summary_request(req) or "<transcript>" in last or "tool calls are refused" in last:
            asked.append(req)
            k = len(asked) - 1
            if k < len(summaries) and summaries[k] is not None:
                return summaries[k]  # type: ignore[return-value]
            return agent.summarize(req)
        return agent(req)

    with FakeOpenAIServer(responder) as server:
        s = _task_session(tmp_path, server, n)
        events: list = []
        s.cm.event_sink = events.append
        out = await s.run_turn(task_text(n))
        await s.aclose()
    return s, out, events, asked, server


async def test_empty_summary_gives_way_to_a_record_and_nothing_else_is_rewritten(tmp_path: Path) -> None:
    """An empty reply is no summary: the compaction keeps a record of the steps written without a model
    instead (records are kept by default), and no compaction fails; where records are not kept it fails
    and rewrites nothing (tests/context/test_summary_not_written.py)."""
    s, out, events, asked, server = await _run_with_summaries(tmp_path, [Reply.text("")])
    failed = [e for e in events if e.layer == "compact" and e.action == "failed"]
    done = [e for e in events if e.layer == "compact" and e.action != "failed"]
    instead = [e for e in done if e.detail.get("summary_unsent")]
    assert not failed and s.cm.failures == 0
    assert len(instead) == 1 and instead[0].action == "record" and "empty summary" in instead[0].detail["summary_unsent"]
    assert out.output.startswith("FINAL SUM")
    # One archive per compaction made: the empty reply rewrote nothing of its own.
    assert len(list(s.store.archive_dir.glob("*.jsonl"))) == len(done)


async def test_tagless_summary_is_used_as_it_is(tmp_path: Path) -> None:
    text = f"{task_text(12)} Read so far: the first files. PROGRESS: done through file_03, sum=442"
    s, out, events, asked, server = await _run_with_summaries(tmp_path, [Reply.text(text)])
    assert not [e for e in events if e.layer == "compact" and e.action == "failed"]
    summaries = [e for e in events if e.layer == "compact" and e.action == "full"]
    assert summaries and out.output.startswith("FINAL SUM")
    # The text became the summary message of the first compaction (in the live session or a later archive).
    files = [s.store.path, *s.store.archive_dir.glob("*.jsonl")]
    assert any("done through file_03, sum=442" in str(getattr(p, "content", ""))
               for f in files for m in load_session_file(f).messages for p in m.parts)


async def test_a_tool_call_in_a_summary_reply_is_refused_and_nothing_runs(tmp_path: Path) -> None:
    """Whatever the summarizer replies, compaction requests cannot act: the file is never written."""
    evil = Reply.tools([("write_file", {"path": "PWNED.txt", "content": "owned"}),
                        ("bash", {"command": "touch BASHED.txt"})])
    s, out, events, asked, server = await _run_with_summaries(tmp_path, [evil, evil, evil])
    project = tmp_path / "p"
    assert not (project / "PWNED.txt").exists() and not (project / "BASHED.txt").exists()
    assert asked[0].tool_choice == "none"  # the request itself offered no tool use
    # The call was answered as refused and the model asked again for text only.
    retry = message_text(asked[1].messages[-1])
    assert "tool calls are refused" in retry
    refusals = [m for m in asked[1].messages if m.get("role") == "tool"]
    assert any("Refused: tools are disabled" in message_text(m) for m in refusals)
    assert out.output.startswith("FINAL SUM")
    assert not [r for r in server.rejected if r[1] == 400]


async def test_summary_failures_count_for_the_breaker_normal_failures_do_not(tmp_path: Path) -> None:
    err = Reply.error(500, {"error": {"message": "summaries are down", "type": "server_error"}},
                      {"x-should-retry": "false"})
    s, out, events, asked, server = await _run_with_summaries(tmp_path, [err] * 6)
    failed = [e for e in events if e.layer == "compact" and e.action == "failed"]
    assert len(failed) == 3 and s.cm.breaker_open  # shared + separate path per compaction, three times
    assert len(asked) == 6  # and none after the breaker opened
