"""Wrong types in every field of every importer's input: a file is loaded or skipped with one line,
and `analyze` over a folder goes on past a bad file."""

from __future__ import annotations

import copy
import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from compact_agent.replay.batch import load_or_note
from compact_agent.replay.importers import Transcript

from .test_importer_traps import CHAT, CLAUDE_SESSION, CODEX_SESSION, cc_assistant, cc_user, tool_use

WRONG: list[Any] = [None, 7, -1.5, "x", [], {}, True]
MINI = {"info": {"config": {"model": {"model_name": "gpt-4o"}}},
        "messages": [{"role": "system", "content": "s"}, {"role": "user", "content": "u"},
                     {"role": "assistant", "content": "THOUGHT\n```bash\nls\n```", "extra": {"response": {"usage": {"prompt_tokens": 10}}}},
                     {"role": "user", "content": "<output>a.py</output>"}]}  # fmt: skip
SWE = {"history": [{"role": "system", "content": "s"}, {"role": "user", "content": "u"},
                   {"role": "assistant", "content": "ls", "action": "ls"},
                   {"role": "user", "content": "a.py", "message_type": "observation"}]}  # fmt: skip
SAMPLES: dict[str, tuple[Any, bool]] = {  # name -> (document, written as JSON lines)
    "claude-code": (CLAUDE_SESSION, True), "codex": (CODEX_SESSION, True), "chat": ({"messages": CHAT}, False),
    "mini-swe-agent": (MINI, False), "swe-agent": (SWE, False),
}


def paths(node: Any, at: tuple[Any, ...] = ()) -> Iterator[tuple[Any, ...]]:
    if at:
        yield at
    if isinstance(node, dict):
        for k, v in node.items():
            yield from paths(v, (*at, k))
    elif isinstance(node, list):
        for i, v in enumerate(node):
            yield from paths(v, (*at, i))


def replaced(doc: Any, at: tuple[Any, ...], value: Any) -> Any:
    out = copy.deepcopy(doc)
    node = out
    for k in at[:-1]:
        node = node[k]
    node[at[-1]] = value
    return out


def write(path: Path, doc: Any, lines: bool) -> Path:
    text = "".join(json.dumps(r) + "\n" for r in doc) if lines else json.dumps(doc)
    path.write_text(text)
    return path


@pytest.mark.parametrize("name", list(SAMPLES))
def test_a_wrong_type_in_any_field_is_loaded_or_skipped_in_one_line(tmp_path: Path, name: str) -> None:
    doc, lines = SAMPLES[name]
    assert isinstance(load_or_note(write(tmp_path / "ok.json", doc, lines)), Transcript)
    tried = 0
    for at in paths(doc):
        for value in WRONG:
            got = load_or_note(write(tmp_path / "t.json", replaced(doc, at, value), lines))
            assert isinstance(got, Transcript) or (isinstance(got, str) and "\n" not in got), (at, value, got)
            tried += 1
    assert tried > 50


def test_analyze_skips_one_bad_transcript_and_reports_the_rest(tmp_path: Path, capsys) -> None:
    from compact_agent.replay.report import run_cli

    folder = tmp_path / "sessions"
    folder.mkdir()
    good = [cc_user("fix it", "2026-01-01T10:00:00Z"),
            cc_assistant("m1", {"type": "text", "text": "done"}, "2026-01-01T10:00:01Z", 3, final=True)]
    bad_call = tool_use("t1") | {"id": None}
    bad = [cc_user("fix it", "2026-01-01T10:00:00Z"), cc_assistant("m1", bad_call, "2026-01-01T10:00:01Z", 3),
           cc_user([{"type": "tool_result", "tool_use_id": None, "content": "x"}], "2026-01-01T10:00:02Z")]
    write(folder / "good.jsonl", good, True)
    write(folder / "bad.jsonl", bad, True)
    code = run_cli([folder], window=32_000, strategies=["ours"], pricing="deepseek", as_json=True, plot=None,
                   model=None)
    out, err = capsys.readouterr()
    assert code == 0, err
    got = json.loads(out)["transcripts"]
    assert [t["path"] for t in got] == [str(folder / "good.jsonl")]
    assert "analysis failed" not in err and all(ln.startswith("compact-agent: ") for ln in err.splitlines())
    assert f"skipped {folder / 'bad.jsonl'}: no model responses to replay" in err  # its only one lost its call
