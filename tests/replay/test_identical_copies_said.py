"""Files whose bytes are identical (a transcript copied beside itself) are each replayed and counted,
as any file named is; the output said "Total over 2 transcripts" for one session without a word. A
note on stderr names the copies; none are dropped."""

from __future__ import annotations

import json
from pathlib import Path

from compact_agent.replay.finding import copies_lines

from .test_batch import _chat
from .test_cli_analyze import cli


def test_identical_copies_are_named_and_still_counted(tmp_path: Path) -> None:
    text = json.dumps(_chat(4))
    for name in ("a.json", "b.json"):
        (tmp_path / "dup" / name).parent.mkdir(exist_ok=True)
        (tmp_path / "dup" / name).write_text(text)
    other = text.replace("step", "Step", 1)  # the same size, other bytes: no copy
    assert len(other) == len(text) and other != text
    (tmp_path / "dup" / "c.json").write_text(other)
    for args in ((), ("--json",)):
        out = cli("dup", "-s", "none", *args, cwd=tmp_path)
        assert out.returncode == 0, out.stderr
        notes = [line for line in out.stderr.splitlines() if "same bytes" in line]
        assert notes == ["compact-agent: note: dup/a.json and 1 other file hold the same bytes (dup/b.json): each "
                         "copy is replayed and counted in the totals"], out.stderr
        if args:
            assert len(json.loads(out.stdout)["transcripts"]) == 3  # none dropped
        else:
            assert "Total over 3 transcripts" in out.stdout, out.stdout


def test_many_copies_are_named_up_to_three_and_no_lone_file_is(tmp_path: Path) -> None:
    for i in range(5):
        (tmp_path / f"t{i}.json").write_text("same")
    (tmp_path / "lone.json").write_text("else")
    [line] = copies_lines(sorted(tmp_path.iterdir()))
    assert "lone.json" not in line
    assert f"note: {tmp_path / 't0.json'} and 4 other files hold the same bytes (" in line and ", …)" in line
