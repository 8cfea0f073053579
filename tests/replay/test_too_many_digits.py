"""A whole number of more digits than Python reads (4,300) in a transcript costs its request's recorded
usage alone, as a 20-digit one does. `json.loads` raised a ValueError for it ('Exceeds the limit (4300
digits) for integer string conversion'), and one such count made the whole file unreadable: 'no
transcripts found: ...: a field has a type or value the importer cannot use'."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from compact_agent.replay._recorded import loads

from .test_usage_counts_strict import ROUNDS, _analyzed, _chat, _claude_code

HUGE = "9" * 4_400
MARK = '"@digits@"'  # json.dumps cannot write HUGE (str() of it is refused too): put in the text after


def _believed_not(transcript: dict[str, Any]) -> bool:
    return any("counts more than 1,000,000,000 tokens" in w and "not believed" in w for w in transcript["warnings"])


def test_a_count_of_4400_digits_costs_its_request_as_one_of_20_does(tmp_path: Path) -> None:
    twenty = _analyzed(tmp_path, "twenty.jsonl", _claude_code("@digits@").replace(MARK, "9" * 20))
    huge = _analyzed(tmp_path, "huge.jsonl", _claude_code("@digits@").replace(MARK, HUGE))
    assert _believed_not(huge) and huge["fit"]["samples"] == ROUNDS - 1, huge
    assert huge == twenty


def test_in_a_json_document_and_on_a_first_line(tmp_path: Path) -> None:
    """The chat JSON read whole, its third request's count negative and too long; a Claude Code file
    whose first line (read to tell JSON lines from one document) holds one in a field of no use."""
    chat = _analyzed(tmp_path, "chat.json", _chat("@digits@").replace(MARK, "-" + HUGE))
    assert chat["fit"]["samples"] == 3 and any("no count" in w or "not believed" in w for w in chat["warnings"]), chat
    lines = _claude_code().splitlines()
    first = json.loads(lines[0]) | {"extra": "@digits@"}
    text = "\n".join([json.dumps(first).replace(MARK, HUGE), *lines[1:]]) + "\n"
    assert _analyzed(tmp_path, "first.jsonl", text)["fit"]["samples"] == ROUNDS


def test_loads_reads_other_numbers_as_json_does() -> None:
    text = '{"a": 12, "b": -3, "c": 2.5, "d": [1e3, 0]}'
    assert loads(text) == json.loads(text)
    assert loads(f'{{"n": {HUGE}}}')["n"] > 10**9 and loads(f"[-{HUGE}]")[0] < -(10**9)
