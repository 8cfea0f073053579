"""A window no larger than what a transcript sends with every request (its recorded system prompt
and tools, the fit's overhead) is said in one line, in the text and in `--json`: every request is
over it whatever the strategy, and the figures would otherwise print as usual."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from compact_agent.replay.report import run_cli


def _chat(fixed: int) -> list[dict]:
    """A chat whose recorded prompts are `fixed` tokens more than its messages (a system prompt and tools)."""
    chat: list[dict] = []
    for i in range(6):
        chat.append({"role": "user", "content": f"step {i} " + "word " * 40})
        chat.append({"role": "assistant", "content": f"done {i}",
                     "usage": {"prompt_tokens": fixed + 60 * (i + 1), "completion_tokens": 5}})
    return chat


def _run(paths: list[Path], as_json: bool, capsys: pytest.CaptureFixture[str]) -> str:
    code = run_cli(paths, window=6_000, strategies=["ours", "none"], pricing="deepseek", as_json=as_json,
                   plot=None, model=None, totals_only=True)
    out, err = capsys.readouterr()
    assert code == 0, err
    return out


def test_a_window_below_the_fixed_part_is_said_once(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "big.json").write_text(json.dumps(_chat(9_000)))
    (tmp_path / "small.json").write_text(json.dumps(_chat(1_000)))
    said = json.loads(_run([tmp_path], True, capsys))["window_warning"]
    assert said.startswith("window 6,000 tokens is no larger than what 1 of 2 transcripts (openai-chat) send with every "
                           "request, their recorded system prompt and tools (9.0K tokens)")
    assert said.endswith("tokens): each of their requests is over the window, whatever the strategy")
    text = " ".join(_run([tmp_path], False, capsys).split())
    assert text.count("warning: window 6,000 tokens is no larger than") == 1 and said in text
    assert json.loads(_run([tmp_path / "small.json"], True, capsys))["window_warning"] is None
    assert "window 6,000 tokens is no larger" not in _run([tmp_path / "small.json"], False, capsys)


def test_an_assumed_overhead_is_not_called_a_recorded_prompt(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Prompts recorded 50K over the messages (a compaction request holding its parent conversation)
    are replayed with 40,000 assumed: not 'their recorded system prompt and tools'."""
    (tmp_path / "held.json").write_text(json.dumps(_chat(50_000)))
    said = json.loads(_run([tmp_path / "held.json"], True, capsys))["window_warning"]
    assert said.startswith("window 6,000 tokens is no larger than what 1 of 1 transcript (openai-chat) send with "
                           "every request, their system prompt and the 40,000 tokens assumed where the recorded "
                           "prompts exceed what the file holds (40.0K tokens)"), said
    (tmp_path / "big.json").write_text(json.dumps(_chat(9_000)))
    both = json.loads(_run([tmp_path], True, capsys))["window_warning"]
    assert ("their recorded system prompt and tools, or for 1 of them the 40,000 tokens assumed where the recorded "
            "prompts exceed what the file holds (up to 40.0K tokens)") in both, both
