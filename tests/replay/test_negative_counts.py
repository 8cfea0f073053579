"""A negative token count in a transcript's usage is no count: it made the replay's costs negative."""

from __future__ import annotations

import json
from pathlib import Path

from compact_agent.replay._recorded import usage_from_mapping

from .test_cli_analyze import cli


def test_negative_counts_are_not_read_as_counts(tmp_path: Path) -> None:
    chat = [{"role": "user", "content": "hi"},
            {"role": "assistant", "content": "hello", "usage": {"prompt_tokens": 30, "completion_tokens": -5000}}]
    (tmp_path / "t.json").write_text(json.dumps(chat))
    out = cli("t.json", "--json", "-s", "ours", cwd=tmp_path)
    assert out.returncode == 0, out.stderr
    [ours] = json.loads(out.stdout)["totals"]
    assert ours["output_tokens"] >= 0 and ours["cost"] >= 0 and min(ours["cost_parts"].values()) >= 0, ours
    usage = usage_from_mapping({"input_tokens": 10, "cache_read_input_tokens": -7, "output_tokens": -1})
    # no partial count (10 input, 0 read): the request's usage is unknown (tests/replay/test_usage_counts_strict.py)
    assert usage is not None and usage.unmeasured_requests == 1 and usage.input_tokens == 0
