"""The line under the analyzer's tables speaks of what the tables show, and explains what a newcomer
reads in them.

Without ours (`-s none -s gemini -s cline`) nothing marked a row a provider would have refused in
part (none's recall of 100%, gemini's 408 requests over the window): the mark was relative to ours
alone. Now a row with requests over the window is marked there, and the footer says what the mark
means in such a table; the footer no longer says what ours is, nor names ours' layers in the freed
column's labels, when ours is not shown, nor who wrote summaries when no strategy shown writes one.
The captions' `size = 1.45 × estimate + 26.6K overhead, fit error …` and `recorded prompts exceed
the messages by 170,360 tokens … replayed with a 40,000 overhead` are explained under the tables,
and the output limit capped at a quarter of the window is said to be that, not the model's own."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from compact_agent.replay.metrics import Metrics
from compact_agent.replay.report import run_cli
from compact_agent.replay.report_notes import (
    CAPPED_NOTE,
    FIT_ERROR_NOTE,
    FIT_NOTE,
    LEGEND,
    NOT_COMPARABLE,
    OVER_WINDOW,
    WHO,
    freed_legend,
)
from compact_agent.replay.report_table import freed_text

from .test_batch import _chat


def _used(fixed: int) -> list[dict]:
    """A chat whose recorded prompts are `fixed` tokens more than its messages."""
    chat: list[dict] = []
    for i in range(6):
        chat.append({"role": "user", "content": f"step {i} " + "word " * 40})
        chat.append({"role": "assistant", "content": f"done {i}",
                     "usage": {"prompt_tokens": fixed + 60 * (i + 1), "completion_tokens": 5}})
    return chat


def _run(paths: list[Path], strategies: list[str], capsys: pytest.CaptureFixture[str], *, window: int = 8_000,
         as_json: bool = False) -> str:
    code = run_cli(paths, window=window, strategies=strategies, pricing="deepseek", as_json=as_json, plot=None,
                   model=None)
    out, err = capsys.readouterr()
    assert code == 0, err
    return out if as_json else " ".join(out.split())


@pytest.fixture(autouse=True)
def _wide(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("COLUMNS", "200")  # every column, the freed one too


def test_without_ours_rows_over_the_window_are_marked_and_ours_is_not_spoken_of(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "long.json").write_text(json.dumps(_chat(40)))  # over 8,000 tokens without compaction
    text = _run([tmp_path], ["none", "gemini", "cline"], capsys)
    assert "│none* │" in text and "│cline │" in text, text[:2000]  # cline compacts: none over the window
    assert OVER_WINDOW in text and NOT_COMPARABLE not in text
    assert "ours" not in text.split("max output")[1]  # the footer: neither what ours is nor its layers
    assert "each rival: docs/analyzer.md" in text
    assert freed_legend({"none", "gemini", "cline"}) in text
    assert freed_legend({"none", "gemini", "cline"}) == ("freed: the rivals' out-mask and trunc (gemini's output "
                                                          "masking and truncation), cut (cline's compaction, rebuilt "
                                                          "without a model), sum (their compaction)")
    assert freed_legend({"cline"}) == "freed: the rivals' cut (cline's compaction, rebuilt without a model)"
    for strategy, label in (("cline", "cut"), ("codex", "sum"), ("ours", "L5")):  # the cells say what the legend does
        assert freed_text(Metrics(strategy, "t", compaction_freed=12_000)) == f"{label} 12.0K"
    assert "summaries by the deterministic stand-in" in text  # gemini writes them
    got = json.loads(_run([tmp_path], ["none", "cline"], capsys, as_json=True))
    assert [r["comparable"] for r in got["totals"]] == [False, True]  # as the table marks them: none*, cline
    alone = _run([tmp_path], ["none", "cline"], capsys)
    assert "│none* │" in alone and "summaries by" not in alone  # neither writes a summary

    both = _run([tmp_path], ["ours", "none"], capsys)  # beside ours, as before: relative to ours
    assert "│none* │" in both and NOT_COMPARABLE in both and OVER_WINDOW not in both and WHO in both
    assert freed_legend({"ours", "none"}) in both and "the rivals'" not in both


def test_the_freed_legend_of_every_strategy_is_the_whole_one() -> None:
    every = {"ours", "none", "seed000", "seed000-submit", "codex", "masking", "opencode", "gemini", "cline",
             "anthropic-clear"}
    assert freed_legend(every) == LEGEND["freed (view/req; compaction)"]


def test_the_fit_and_the_assumed_overhead_are_explained(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "fitted.json").write_text(json.dumps(_used(2_000)))
    text = _run([tmp_path / "fitted.json"], ["ours"], capsys, window=64_000)
    assert "× estimate + 2.0K overhead, fit error" in text and CAPPED_NOTE not in text
    assert f"{FIT_NOTE}; {FIT_ERROR_NOTE}" in text
    (tmp_path / "held.json").write_text(json.dumps(_used(50_000)))  # a compaction request's, its parent held
    text = _run([tmp_path / "held.json"], ["ours"], capsys, window=64_000)
    assert "recorded prompts exceed the messages by" in text and CAPPED_NOTE in text
    totals = run_cli([tmp_path], window=64_000, strategies=["ours"], pricing="deepseek", as_json=False, plot=None,
                     model=None, totals_only=True)
    out = " ".join(capsys.readouterr().out.split())
    assert totals == 0 and FIT_NOTE not in out and CAPPED_NOTE not in out  # no caption printed, nothing to explain


def test_the_output_limit_capped_at_a_quarter_of_the_window_is_said_so(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "t.json").write_text(json.dumps(_chat(4)))
    assert ("max output 2,000 tokens (a quarter of the window: deepseek-chat's own 8,192, from --pricing, capped "
            "there; the strategies' triggers assume it)") in _run([tmp_path], ["ours"], capsys, window=8_000)
    assert ("max output 8,192 tokens (deepseek-chat's, from --pricing; the strategies' triggers assume it)"
            in _run([tmp_path], ["ours"], capsys, window=64_000))
