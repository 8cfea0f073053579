"""mini-swe-agent's compaction (off by default): the trajectory keeps every message and records each
compaction in a top-level `compaction` object (`_mini_compaction`). The files are hand-made in the
shape its agents/default.py saves."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from pydantic_ai.messages import ModelResponse

from compact_agent.replay import load_transcript
from compact_agent.replay.retention import typed_texts
from compact_agent.replay.sizing import recorded_points

from ._helpers import assert_valid_conversation

T0 = 1_780_000_000.0


def step(i: int, prompt_tokens: int) -> list[dict[str, Any]]:
    """One call of the model (a bash command) and its output."""
    call_id = f"call_{i}"
    return [
        {"role": "assistant", "content": f"Step {i}: run it.",
         "tool_calls": [{"id": call_id, "type": "function",
                         "function": {"name": "bash", "arguments": json.dumps({"command": f"cat part{i}.py"})}}],
         "extra": {"actions": [{"command": f"cat part{i}.py", "tool_call_id": call_id}], "cost": 0.01,
                   "timestamp": T0 + 10 * i,
                   "response": {"usage": {"prompt_tokens": prompt_tokens, "completion_tokens": 30}}}},
        {"role": "tool", "tool_call_id": call_id, "content": f"<returncode>0</returncode>\n{'x = 1  # line' * 40}",
         "extra": {"returncode": 0, "timestamp": T0 + 10 * i + 1}},
    ]


def trajectory(records: list[dict[str, Any]]) -> dict[str, Any]:
    messages = [{"role": "system", "content": "You are a helpful assistant that runs bash commands."},
                {"role": "user", "content": "Make the tests pass."}]
    for i, tokens in enumerate((1000, 1400, 1800, 700, 1100), start=1):  # the 4th call came after the compaction
        messages += step(i, tokens)
    messages.append({"role": "exit", "content": "", "extra": {"exit_status": "Submitted", "submission": ""}})
    return {"info": {"model_stats": {"instance_cost": 0.07, "api_calls": 6, "task_calls": 5,
                                     "compaction_calls": len(records)},
                     "config": {"model": {"model_name": "openai/gpt-test"}}, "exit_status": "Submitted"},
            "messages": messages,
            "compaction": {"summary": records[-1]["summary"] if records else "",
                           "compacted_until": records[-1]["compacted_until"] if records else 1,
                           "records": records, "active_estimated_tokens": 900, "context_limit": 4000},
            "trajectory_format": "mini-swe-agent-1.1"}


RECORD = {"summary": "Checkpoint: the task is to make the tests pass; parts 1-3 were read.", "compacted_until": 6,
          "reason": "auto", "estimated_tokens_before": 2100, "estimated_tokens_after": 800, "cost": 0.002,
          "timestamp": T0 + 35}


def load(tmp_path: Path, document: dict[str, Any]) -> Any:
    path = tmp_path / "run.traj.json"
    path.write_text(json.dumps(document), encoding="utf-8")
    return load_transcript(path)


def test_a_compaction_is_recorded_before_the_call_it_preceded_and_stops_the_fit(tmp_path: Path) -> None:
    transcript = load(tmp_path, trajectory([RECORD]))
    [compaction] = transcript.recorded_compactions
    assert compaction["source"] == "mini-swe-agent" and compaction["trigger"] == "auto"
    reply = transcript.messages[compaction["message_index"]]
    assert isinstance(reply, ModelResponse) and reply.usage.input_tokens == 700  # the 4th call, at T0 + 40
    assert [tokens for _, tokens in recorded_points(transcript, transcript.messages)] == [1000, 1400, 1800]
    assert typed_texts(transcript.messages, transcript.harness_texts) == ["Make the tests pass."]
    assert not any(RECORD["summary"] in str(part) for m in transcript.messages for part in m.parts)
    [note] = [w for w in transcript.warnings if "compacted" in w]
    assert note.startswith("mini-swe-agent compacted this run 1 time: its summary is not among the messages")
    assert_valid_conversation(transcript.messages)


def test_without_timestamps_the_compaction_goes_before_the_first_call_after_what_it_summarised(
        tmp_path: Path) -> None:
    document = trajectory([{**RECORD, "timestamp": None}])
    for message in document["messages"]:
        message.get("extra", {}).pop("timestamp", None)
    transcript = load(tmp_path, document)
    [compaction] = transcript.recorded_compactions
    reply = transcript.messages[compaction["message_index"]]
    assert isinstance(reply, ModelResponse) and reply.usage.input_tokens == 700


def test_compaction_off_records_nothing(tmp_path: Path) -> None:
    transcript = load(tmp_path, trajectory([]))
    assert transcript.recorded_compactions == [] and not any("compacted" in w for w in transcript.warnings)
    assert len(recorded_points(transcript, transcript.messages)) == 5
