"""A chart passed on alone says what the terminal's output says of its figures: who wrote the
summaries (the deterministic stand-in or `--model`'s model), and how many transcripts were replayed
on filler standing for redacted text. The chart said neither."""

from __future__ import annotations

import json
import xml.etree.ElementTree as ET
from pathlib import Path

from compact_agent.replay import report
from compact_agent.replay.plot import caption_lines, write_plot

from .test_batch import _chat
from .test_importer_traps import CODEX_SESSION, write_jsonl

STAND_IN = "summaries by the deterministic stand-in (--model NAME has a model write them)"
FILLER = "1 of 2 transcripts replayed on deterministic filler standing for redacted text"


def _texts(chart: Path) -> list[str]:
    return [t.text or "" for t in ET.parse(chart).iter("{http://www.w3.org/2000/svg}text")]


async def test_the_chart_says_who_wrote_the_summaries_and_which_transcripts_were_replayed_on_filler(
        tmp_path: Path) -> None:
    (tmp_path / "chat.json").write_text(json.dumps(_chat(6)))
    write_jsonl(tmp_path / "rollout.jsonl", CODEX_SESSION)
    analysis = await report.analyze([tmp_path], window=8_000, strategies=["ours", "none"])
    texts = _texts(write_plot(analysis, tmp_path / "chart.svg"))
    assert STAND_IN in texts and FILLER in texts, texts
    analysis.summary_model = "deepseek-chat"  # as run_cli sets it for --model
    assert caption_lines(analysis)[0] == "summaries by deepseek-chat (--model)"


async def test_a_chart_of_plain_transcripts_has_no_such_line(tmp_path: Path) -> None:
    (tmp_path / "chat.json").write_text(json.dumps(_chat(6)))
    analysis = await report.analyze([tmp_path], window=8_000, strategies=["ours", "none"])
    texts = _texts(write_plot(analysis, tmp_path / "chart.svg"))
    assert STAND_IN in texts and not any("deterministic filler" in t for t in texts), texts
