"""Every importer reads a recorded token count as `usage_from_mapping` does (test_usage_counts_strict.py):
a whole number written as a float (25.0, a pandas or JavaScript round trip) is that number, and a value
that is no count (text, NaN, a negative number, a fraction, true or false) makes that request's usage
unknown, said once. These readers had their own rule, int only: litellm's cache fields in a chat
transcript, Gemini CLI's tokens, Cline's ui_messages.json and its SDK's metrics took a float or text as 0
(or dropped the line) without a word. Codex's importer: test_codex_unreadable_usage_said.py."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from compact_agent.replay import load_transcript
from compact_agent.replay.importers import Transcript

from ._helpers import responses
from .test_cline_sdk_sessions import call, m, prompt, reply, session
from .test_cline_task_folder import history, task

BAD = {"text": "2000", "not a number (NaN)": float("nan"), "a negative number": -2000, "a fraction": 2000.5,
       "true or false": True}


def counts(transcript: Transcript) -> list[tuple[int, int, int, int, int]]:
    """Each response's (input, cache reads, cache writes, output, unknown)."""
    return [(r.usage.input_tokens, r.usage.cache_read_tokens, r.usage.cache_write_tokens, r.usage.output_tokens,
             r.usage.unmeasured_requests) for r in responses(transcript.messages)]


def said(transcript: Transcript, field: str, what: str) -> None:
    """The one warning on a request's usage holding a value that is no count, naming `field`."""
    assert [w for w in transcript.warnings if "no count of tokens" in w] == [
        f"the recorded usage of 1 response holds a value that is no count of tokens ({field} is {what}): not "
        "believed, that request is replayed as without recorded usage (size fitted, output estimated)"
    ], transcript.warnings


def unknown_at(transcript: Transcript, index: int) -> None:
    """The response at `index` alone has its usage unknown, with no partial count left on it."""
    usage = [r.usage for r in responses(transcript.messages)]
    assert [u.unmeasured_requests for u in usage] == [int(i == index) for i in range(len(usage))], usage
    assert usage[index].input_tokens == 0 and not usage[index].details


# --- litellm's cache fields in a chat transcript (_openai_chat._chat_usage) ---------------------------------


def _chat(tmp_path: Path, **third: Any) -> Transcript:
    """Three chat rounds whose usage litellm recorded with Anthropic's cache fields beside prompt_tokens;
    the third's fields replaced by `third`."""
    chat: list[dict[str, Any]] = []
    for i in range(3):
        usage: dict[str, Any] = {"prompt_tokens": 3_000 + 500 * i, "completion_tokens": 12,
                                 "cache_read_input_tokens": 2_000, "cache_creation_input_tokens": 400 + 100 * i}
        usage |= third if i == 2 else {}
        chat += [{"role": "user", "content": f"step {i} " + "word " * 200 * i},
                 {"role": "assistant", "content": f"done {i}", "usage": usage}]
    path = tmp_path / "t.json"
    path.write_text(json.dumps({"messages": chat}))
    return load_transcript(path)


def test_litellm_cache_counts_written_as_floats_are_those_counts(tmp_path: Path) -> None:
    as_ints = counts(_chat(tmp_path))
    assert as_ints[2] == (4_000, 2_000, 600, 12, 0)
    assert counts(_chat(tmp_path, cache_read_input_tokens=2_000.0, cache_creation_input_tokens=600.0)) == as_ints


@pytest.mark.parametrize("what", BAD)
def test_a_litellm_cache_count_that_is_no_count_makes_its_request_unknown_and_is_said(tmp_path: Path,
                                                                                   what: str) -> None:
    transcript = _chat(tmp_path, cache_creation_input_tokens=BAD[what])
    unknown_at(transcript, 2)
    said(transcript, "cache_creation_input_tokens", what)


def test_openrouters_cache_writes_are_read_as_counts_too(tmp_path: Path) -> None:
    transcript = _chat(tmp_path, cache_creation_input_tokens=None,
                       prompt_tokens_details={"cached_tokens": 2_000, "cache_write_tokens": "600"})
    unknown_at(transcript, 2)
    said(transcript, "prompt_tokens_details.cache_write_tokens", "text")


# --- Gemini CLI's tokens (_gemini_cli._usage) ---------------------------------------------------------------


def _gemini(tmp_path: Path, **second: Any) -> Transcript:
    """A Gemini CLI session of two replies; the second's tokens replaced by `second`."""
    messages: list[dict[str, Any]] = []
    for i in range(2):
        tokens: dict[str, Any] = {"input": 5_000 + 900 * i, "output": 40, "cached": 3_000, "thoughts": 60, "tool": 0}
        tokens |= second if i == 1 else {}
        messages += [{"id": f"u{i}", "timestamp": f"2026-01-10T09:0{i}:00.000Z", "type": "user",
                      "content": [{"text": f"explain part {i}"}]},
                     {"id": f"g{i}", "timestamp": f"2026-01-10T09:0{i}:05.000Z", "type": "gemini",
                      "content": f"part {i} does this.", "model": "gemini-2.5-pro", "tokens": tokens}]
    path = tmp_path / "session-x.json"
    path.write_text(json.dumps({"sessionId": "5d1a2b3c-0000-4000-8000-000000000000", "projectHash": "ab" * 32,
                                "startTime": "2026-01-10T09:00:00.000Z", "lastUpdated": "2026-01-10T09:05:00.000Z",
                                "messages": messages}))
    transcript = load_transcript(path)
    assert transcript.format == "gemini-cli"
    return transcript


def test_gemini_counts_written_as_floats_are_those_counts(tmp_path: Path) -> None:
    as_ints = counts(_gemini(tmp_path))
    assert as_ints[1] == (5_900, 3_000, 0, 100, 0)
    assert counts(_gemini(tmp_path, input=5_900.0, output=40.0, cached=3_000.0, thoughts=60.0)) == as_ints


@pytest.mark.parametrize("what", BAD)
def test_a_gemini_count_that_is_no_count_makes_its_request_unknown_and_is_said(tmp_path: Path, what: str) -> None:
    transcript = _gemini(tmp_path, cached=BAD[what])
    unknown_at(transcript, 1)
    said(transcript, "tokens.cached", what)


# --- Cline's ui_messages.json (_cline._counts, _cline._usage) --------------------------------------------------


def _line(ts: int, index: int, **counted: Any) -> dict[str, Any]:
    """An api_req_started line as Cline leaves it once the request has finished, its counts as given."""
    info = {"request": "...", "tokensIn": 10, "tokensOut": 40, "cacheWrites": 0, "cacheReads": 0, "cost": 0.01}
    return {"ts": ts, "type": "say", "say": "api_req_started", "conversationHistoryIndex": index,
            "text": json.dumps({**info, **counted})}


def _cline(tmp_path: Path, **second: Any) -> Transcript:
    folder = task(tmp_path, history(), [_line(950, -1, cacheWrites=2_000),
                                        _line(2_500, 1, **{"tokensIn": 5, "tokensOut": 8, "cacheWrites": 600,
                                                           "cacheReads": 2_000, **second})])
    return load_transcript(folder / "api_conversation_history.json")


def test_cline_counts_written_as_floats_are_those_counts(tmp_path: Path) -> None:
    as_ints = counts(_cline(tmp_path / "ints"))
    assert as_ints == [(2_010, 0, 2_000, 40, 0), (2_605, 2_000, 600, 8, 0)]
    floats = _cline(tmp_path / "floats", tokensIn=5.0, tokensOut=8.0, cacheWrites=600.0, cacheReads=2_000.0)
    assert counts(floats) == as_ints and not floats.warnings


@pytest.mark.parametrize("what", BAD)
def test_a_cline_count_that_is_no_count_makes_its_request_unknown_and_is_said(tmp_path: Path, what: str) -> None:
    transcript = _cline(tmp_path, cacheReads=BAD[what])
    unknown_at(transcript, 1)
    said(transcript, "cacheReads", what)


def test_a_cline_line_whose_counts_are_all_text_is_a_request_said_not_dropped(tmp_path: Path) -> None:
    """A line was a request only when its tokensIn or tokensOut was an int: written as text, both left
    the line out, and its response without usage, in silence."""
    transcript = _cline(tmp_path, tokensIn="5", tokensOut="8")
    unknown_at(transcript, 1)
    said(transcript, "tokensIn", "text, tokensOut is text")  # each field that was no count


# --- the metrics of Cline's SDK sessions (_cline_sdk._counts) ---------------------------------------------------


def _metrics(**changed: Any) -> dict[str, Any]:
    """A response's metrics of 6,100 tokens in, 20 out, with `changed` written over them."""
    return {**m(6_100), **changed}


def test_cline_sdk_metrics_written_as_floats_are_those_counts(tmp_path: Path) -> None:
    def floats(metrics: dict[str, int]) -> dict[str, Any]:
        return {k: float(v) for k, v in metrics.items()}

    runs = [(m(5_200, read=4_000, write=1_000), m(6_100, read=5_000))]
    as_ints = load_transcript(session(tmp_path / "a", [prompt("read f1"), *call(1, runs[0][0]), reply(2, runs[0][1])]))
    as_floats = load_transcript(session(tmp_path / "b", [prompt("read f1"), *call(1, floats(runs[0][0])),
                                                         reply(2, floats(runs[0][1]))]))
    assert counts(as_ints) == [(5_200, 4_000, 1_000, 20, 0), (6_100, 5_000, 0, 20, 0)]
    assert counts(as_floats) == counts(as_ints) and not as_floats.warnings


@pytest.mark.parametrize("what", BAD)
def test_a_cline_sdk_metric_that_is_no_count_makes_its_request_unknown_and_is_said(tmp_path: Path, what: str) -> None:
    transcript = load_transcript(session(tmp_path, [prompt("read f1"), *call(1, m(5_200, read=4_000)),
                                                    reply(2, _metrics(cacheReadTokens=BAD[what]))]))
    unknown_at(transcript, 1)
    said(transcript, "metrics.cacheReadTokens", what)


def test_a_run_whose_counts_are_unreadable_is_not_taken_for_a_total(tmp_path: Path) -> None:
    """The last response of a run whose other responses have no counts is the run's total, left out
    with a note; one whose own counts are unreadable is said as such, not as a total, and a response
    after one with unreadable counts is its own, whatever it sums to."""
    alone = load_transcript(session(tmp_path / "a", [prompt("go"), *call(1, None),
                                                     reply(2, _metrics(inputTokens="6100"))]))
    assert not any("run's total" in w for w in alone.warnings), alone.warnings
    said(alone, "metrics.inputTokens", "text")
    after = load_transcript(session(tmp_path / "b", [prompt("go"), *call(1, _metrics(outputTokens=-20)),
                                                     reply(2, m(6_100))]))
    assert not any("run's total" in w for w in after.warnings), after.warnings
    assert counts(after) == [(0, 0, 0, 0, 1), (6_100, 0, 0, 20, 0)]
    said(after, "metrics.outputTokens", "a negative number")
