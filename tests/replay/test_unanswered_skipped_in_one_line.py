"""Transcripts with no model response, as a folder of one's own sessions holds one for each start
that failed (no key, a server down), are said in one line past MANY_SAID, as files that are no
transcript are: `analyze ~/.local/share/compact-agent/projects` wrote a 'skipped …: no model
responses to replay' line for each of them above the table. A few are still said one a line, and
--json lists each."""

from __future__ import annotations

import json
from pathlib import Path

from compact_agent.replay.finding import MANY_SAID

from .test_cli_analyze import cli

CHAT = [{"role": "user", "content": "hi"}, {"role": "assistant", "content": "hello there"}]
UNANSWERED = [{"role": "user", "content": "hi"}]


def test_many_unanswered_transcripts_are_said_in_one_line(tmp_path: Path) -> None:
    (tmp_path / "t").mkdir()
    (tmp_path / "t" / "chat.json").write_text(json.dumps(CHAT))
    for i in range(MANY_SAID + 3):
        (tmp_path / "t" / f"failed{i:02}.json").write_text(json.dumps(UNANSWERED))
    out = cli("t", "-s", "ours", "--json", cwd=tmp_path)
    assert out.returncode == 0, out.stderr
    assert len(json.loads(out.stdout)["skipped"]) == MANY_SAID + 3  # --json: one per file
    assert out.stderr.splitlines() == [
        f"compact-agent: skipped {MANY_SAID + 3} transcripts with no model responses to replay (failed00.json, "
        "failed01.json, failed02.json, …; --json lists each)"]
    for extra in (tmp_path / "t").glob("failed1*.json"):
        extra.unlink()
    few = cli("t", "-s", "ours", cwd=tmp_path).stderr.splitlines()
    assert few[0] == "compact-agent: skipped t/failed00.json: no model responses to replay" and len(few) == MANY_SAID
