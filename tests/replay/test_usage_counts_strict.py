"""A recorded token count is read as a count only when it is one. A whole number written as a float
(25798.0, as a pandas or JavaScript round trip writes it) is that number: read as 0, every cache read
of a real Claude Code session written so shrank its requests by that much and moved every figure of
the transcript. Anything else — text, NaN, infinity, a negative number, a fraction, true or false —
makes that request's usage unknown (no partial count, no sample for the fit), said in one warning
naming the field: read as 0, it moved the figures as silently."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from pydantic_ai.messages import ModelResponse

from compact_agent.replay import load_transcript
from compact_agent.replay._recorded import usage_from_mapping
from compact_agent.replay.importers import Transcript

from .test_cli_analyze import cli

ROUNDS = 5
BAD = {"text": "25798", "not a number (NaN)": float("nan"), "infinite": float("inf"), "a negative number": -25798,
       "a fraction": 25798.5, "true or false": True}


def _claude_code(cache_read: Any = None, *, floats: bool = False, output: Any = None) -> str:
    """A Claude Code session of ROUNDS requests whose recorded usage follows the messages (a fixed
    prompt read from the cache, plus what the rounds add); with `floats` every count but the output
    is written as a float, and `cache_read` (`output`) replaces the third request's cache read (output)."""
    lines: list[dict[str, Any]] = []
    for i in range(ROUNDS):
        at = f"2026-01-01T10:{i:02d}:00Z"
        lines.append({"type": "user", "uuid": f"u{i}", "timestamp": at,
                      "message": {"role": "user", "content": f"read src/app/mod_{i}.py " + "context words " * 80 * i}})
        read = 25_798 + 450 * i
        usage: dict[str, Any] = {"input_tokens": 3, "cache_read_input_tokens": read, "cache_creation_input_tokens": 120,
                                 "output_tokens": 25, "server_tool_use": {"web_search_requests": 0}}
        if floats:
            usage |= {k: float(usage[k]) for k in ("input_tokens", "cache_read_input_tokens",
                                                   "cache_creation_input_tokens")}
        if i == 2 and cache_read is not None:
            usage["cache_read_input_tokens"] = cache_read
        if i == 2 and output is not None:
            usage["output_tokens"] = output
        lines.append({"type": "assistant", "uuid": f"a{i}", "timestamp": at.replace(":00Z", ":05Z"),
                      "message": {"id": f"msg_{i}", "model": "claude-test", "role": "assistant",
                                  "content": [{"type": "text", "text": f"src/app/mod_{i}.py defines entry_{i}"}],
                                  "usage": usage, "stop_reason": "end_turn"}})
    return "".join(json.dumps(line) + "\n" for line in lines)


def _chat(prompt_tokens: Any = None) -> str:
    """Four chat rounds whose recorded usage follows the messages, the third's prompt_tokens replaced."""
    chat: list[dict[str, Any]] = []
    for i in range(4):
        chat.append({"role": "user", "content": f"read src/app/x_{i}.py " + "word " * 300 * i})
        usage = {"prompt_tokens": 1_800 + 400 * i, "completion_tokens": 12}
        if i == 2 and prompt_tokens is not None:
            usage["prompt_tokens"] = prompt_tokens
        chat.append({"role": "assistant", "content": f"src/app/x_{i}.py defines entry_{i}", "usage": usage})
    return json.dumps({"messages": chat})


def _analyzed(tmp_path: Path, name: str, text: str) -> dict[str, Any]:
    """`analyze --json` of `text` saved as `name` in a folder of its own (its name: the stem), read
    from there: the same name whatever the case, so that the figures alone differ."""
    folder = tmp_path / Path(name).stem
    folder.mkdir(exist_ok=True)
    (folder / f"t{Path(name).suffix}").write_text(text)
    out = cli(f"t{Path(name).suffix}", "--json", cwd=folder)
    assert out.returncode == 0, out.stderr
    [transcript] = json.loads(out.stdout)["transcripts"]
    return dict(transcript)


def test_whole_numbers_written_as_floats_give_the_figures_of_the_integers(tmp_path: Path) -> None:
    as_ints = _analyzed(tmp_path, "ints.jsonl", _claude_code())
    as_floats = _analyzed(tmp_path, "floats.jsonl", _claude_code(floats=True))
    assert as_ints["fit"]["samples"] == ROUNDS and not as_ints["warnings"], as_ints
    assert as_floats == as_ints
    one = _analyzed(tmp_path, "one.jsonl", _claude_code(25_798.0 + 900))  # one float alone, as the others'
    assert one == as_ints
    usage = usage_from_mapping({"prompt_tokens": 100.0, "completion_tokens": 5.0, "prompt_tokens_details": None,
                                "completion_tokens_details": {"reasoning_tokens": None}})
    assert usage is not None and (usage.input_tokens, usage.output_tokens, usage.unmeasured_requests) == (100, 5, 0)


@pytest.mark.parametrize("what", BAD)
def test_a_cache_read_that_is_no_count_makes_its_request_unknown_and_is_said(tmp_path: Path, what: str) -> None:
    path = tmp_path / "s.jsonl"
    path.write_text(_claude_code(BAD[what]))
    transcript = load_transcript(path)
    responses = [m for m in transcript.messages if isinstance(m, ModelResponse)]
    assert [r.usage.unmeasured_requests for r in responses] == [0, 0, 1, 0, 0], what
    assert responses[2].usage.input_tokens == 0 and not responses[2].usage.details  # no partial count, no mark left
    assert [r.usage.cache_read_tokens for r in responses[:2]] == [25_798, 26_248]
    said = [w for w in transcript.warnings if "no count of tokens" in w]
    assert said == [f"the recorded usage of 1 response holds a value that is no count of tokens "
                    f"(cache_read_input_tokens is {what}): not believed, "
                    "that request is replayed as without recorded usage (size fitted, output estimated)"], said
    fit = _analyzed(tmp_path, "s.jsonl", path.read_text())["fit"]
    assert fit["samples"] == ROUNDS - 1, fit


@pytest.mark.parametrize("value", ["2600", float("nan"), -2600])
def test_a_chat_prompt_that_is_no_count_is_said_and_left_out_of_the_fit(tmp_path: Path, value: Any) -> None:
    transcript = _analyzed(tmp_path, "t.json", _chat(value))
    assert transcript["fit"]["samples"] == 3, transcript["fit"]
    assert any(w.startswith("the recorded usage of 1 response holds a value that is no count of tokens "
                            "(prompt_tokens is ") for w in transcript["warnings"]), transcript["warnings"]
    assert _analyzed(tmp_path, "ok.json", _chat())["fit"]["samples"] == 4


def test_a_lone_request_whose_usage_is_no_count_is_not_said_to_have_recorded_none(tmp_path: Path) -> None:
    chat = [{"role": "user", "content": "hi src/a_b.py"},
            {"role": "assistant", "content": "ok", "usage": {"prompt_tokens": float("nan"),
                                                             "completion_tokens": float("inf")}}]
    (tmp_path / "t.json").write_text(json.dumps(chat))
    table = cli("t.json", "-s", "ours", cwd=tmp_path, env={"COLUMNS": "300"})
    assert table.returncode == 0, table.stderr
    assert ("warning: the recorded usage of 1 response holds a value that is no count of tokens (prompt_tokens is "
            "not a number (NaN), completion_tokens is infinite): not believed") in table.stdout, table.stdout


def _chat_of(tmp_path: Path, *usages: dict[str, Any]) -> tuple[Transcript, list[str]]:
    """A chat whose responses record `usages`, loaded, and its warnings of counts that are none."""
    chat: list[dict[str, Any]] = []
    for i, usage in enumerate(usages):
        chat += [{"role": "user", "content": f"step {i}"}, {"role": "assistant", "content": "ok", "usage": usage}]
    (tmp_path / "t.json").write_text(json.dumps(chat))
    transcript = load_transcript(tmp_path / "t.json")
    return transcript, [w for w in transcript.warnings if "no count of tokens" in w]


def test_several_fields_are_named_with_how_many(tmp_path: Path) -> None:
    transcript, said = _chat_of(tmp_path, {"prompt_tokens": "10", "completion_tokens": 1},
                                {"prompt_tokens": 20, "completion_tokens": -1},
                                {"prompt_tokens": 30.5, "completion_tokens": 1}, {"prompt_tokens": 40, "completion_tokens": 1})
    assert said == ["the recorded usage of 3 responses holds a value that is no count of tokens (prompt_tokens in 2, "
                    "completion_tokens in 1; the first: prompt_tokens is text): not believed, those are replayed as "
                    "without recorded usage (size fitted, output estimated)"], said
    responses = [m for m in transcript.messages if isinstance(m, ModelResponse)]
    assert [r.usage.unmeasured_requests for r in responses] == [1, 1, 1, 0]


def test_an_output_count_is_read_as_the_others_are(tmp_path: Path) -> None:
    """Claude Code's importer compared each snapshot's output count before reading the usage, and took
    only a Python int: 25.0 dropped the request's usage in silence, and so did text."""
    as_ints = _analyzed(tmp_path, "ints.jsonl", _claude_code())
    assert _analyzed(tmp_path, "out.jsonl", _claude_code(output=25.0)) == as_ints
    path = tmp_path / "s.jsonl"
    path.write_text(_claude_code(output="25"))
    transcript = load_transcript(path)
    responses = [m for m in transcript.messages if isinstance(m, ModelResponse)]
    assert [r.usage.unmeasured_requests for r in responses] == [0, 0, 1, 0, 0]
    assert any("(output_tokens is text)" in w for w in transcript.warnings), transcript.warnings


def test_every_field_that_is_no_count_is_counted_not_only_each_response_s_first(tmp_path: Path) -> None:
    """The first response's two counts and the second's output were no count: said as 'prompt_tokens in
    1, completion_tokens in 1', each response's first field alone."""
    _, said = _chat_of(tmp_path, {"prompt_tokens": "lots", "completion_tokens": -5},
                       {"prompt_tokens": 40, "completion_tokens": float("nan")}, {"prompt_tokens": 50, "completion_tokens": 1})
    assert said == ["the recorded usage of 2 responses holds a value that is no count of tokens (completion_tokens in "
                    "2, prompt_tokens in 1; the first: prompt_tokens is text): not believed, those are replayed as "
                    "without recorded usage (size fitted, output estimated)"], said
