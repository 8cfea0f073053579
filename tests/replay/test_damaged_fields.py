"""A field of the wrong kind costs its entry, named in the warning, not the whole file; what fails in
the replay of a file that loaded is an error of the analyzer, said as one (exit status 1), never as
the user's file being bad."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import pytest

from compact_agent.replay import batch
from compact_agent.replay.ours import Ours
from compact_agent.replay.report import run_cli
from compact_agent.replay.simulate import TranscriptRun

from .test_importer_traps import CLAUDE_SESSION, CODEX_SESSION, cx, tool_use, write_jsonl


def _replayed(path: Path) -> TranscriptRun | str:
    return asyncio.run(batch._replay(path, ["ours", "none"], 32_000, "deepseek", None))


@pytest.mark.parametrize(("bad", "said"), [([None], "a tool call's input is a list, not an object"),
                                           (1e30, "a tool call's input is a number, not an object")])
def test_a_claude_code_tool_call_of_the_wrong_kind_costs_its_entry(tmp_path: Path, bad: object, said: str) -> None:
    records = [dict(r) for r in CLAUDE_SESSION]
    i = next(i for i, r in enumerate(records) if r.get("message", {}).get("content") == [tool_use("t2")])
    records[i] = json.loads(json.dumps(records[i]))
    records[i]["message"]["content"][0]["input"] = bad
    run = _replayed(write_jsonl(tmp_path / "s.jsonl", records))
    assert isinstance(run, TranscriptRun), run
    assert any(said in w for w in run.transcript.warnings), run.transcript.warnings


def test_a_codex_call_id_or_type_of_the_wrong_kind_costs_its_record(tmp_path: Path) -> None:
    records = [json.loads(json.dumps(r)) for r in CODEX_SESSION]
    i = next(i for i, r in enumerate(records) if r["payload"].get("call_id") == "c2")
    records[i]["payload"]["call_id"] = 5
    records.insert(-1, cx("response_item", {"type": ["message"]}))  # read by the search for rollbacks too
    run = _replayed(write_jsonl(tmp_path / "r.jsonl", records))
    assert isinstance(run, TranscriptRun), run
    assert any("a tool call's id is a number, not text" in w for w in run.transcript.warnings)


def test_a_failure_in_the_replay_is_said_as_ours_and_the_run_ends_in_status_1(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    good = write_jsonl(tmp_path / "good.jsonl", CLAUDE_SESSION)
    bad = write_jsonl(tmp_path / "bad.jsonl", CLAUDE_SESSION)
    step = Ours.step

    async def broken(self: Ours, history: list, sim: Any) -> Any:
        if sim.transcript.source == bad:
            raise TypeError("a bug")
        return await step(self, history, sim)

    monkeypatch.setattr(Ours, "step", broken)
    note = _replayed(bad)
    assert isinstance(note, str) and note.startswith(f"skipped {bad}: the analyzer failed on it, an error of the "
                                                     "analyzer rather than of the file (at test_damaged_fields.py:")
    assert note.endswith("please report it, with the file if you can") and "TypeError" not in note
    code = run_cli([tmp_path], window=32_000, strategies=["ours"], pricing="deepseek", as_json=True, plot=None,
                   model=None)
    out, err = capsys.readouterr()
    got = json.loads(out)
    assert code == 1 and [t["path"] for t in got["transcripts"]] == [str(good)]
    assert got["skipped"] == [note] and err == f"compact-agent: {note}\n"
