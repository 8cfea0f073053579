"""A JSON transcript cut short (copied while being written, a download cut off) says so."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from compact_agent.replay.batch import load_or_note

TRAJECTORY = {"info": {"exit_status": "Submitted"}, "trajectory_format": "mini-swe-agent-1",
              "messages": [{"role": "system", "content": "You are a helpful assistant."},
                           {"role": "user", "content": "fix the bug in src/app/main.py"},
                           {"role": "assistant", "content": "THOUGHT: look\n```bash\ncat src/app/main.py\n```"},
                           {"role": "user", "content": "<output>def main_entry(): pass</output>"},
                           {"role": "assistant", "content": "THOUGHT: done\n```bash\necho done\n```"}]}


@pytest.mark.parametrize("indent", [None, 2])
def test_a_json_document_cut_short_is_said_to_be(tmp_path: Path, indent: int | None) -> None:
    """A trajectory or chat JSON cut mid-way was 'not a transcript', as if its format were unknown."""
    whole = json.dumps(TRAJECTORY, indent=indent)
    path = tmp_path / "run.traj.json"
    path.write_text(whole)
    assert not isinstance(load_or_note(path), str)
    path.write_text(whole[: len(whole) * 2 // 3])
    assert load_or_note(path) == (f"skipped {path}: a JSON document that ends before it is closed (cut short: a "
                                  "copy of a file still being written, or a download cut off): not read")
    path.write_text(whole + "}")  # closed, and broken otherwise: no transcript, as before
    assert load_or_note(path) == f"skipped {path}: not a transcript"
