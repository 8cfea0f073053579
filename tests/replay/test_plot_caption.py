"""A chart made with `--set` or `--prices` says them under its heading, as the report does under its
tables: its figures are not the defaults', and a chart passed on alone must not pass for them."""

from __future__ import annotations

import json
import xml.etree.ElementTree as ET
from pathlib import Path

from compact_agent.replay import report
from compact_agent.replay.plot import write_plot
from tests.replay.test_batch import _chat


def _texts(chart: Path) -> list[str]:
    return [t.text or "" for t in ET.parse(chart).iter("{http://www.w3.org/2000/svg}text")]


async def test_a_chart_names_the_settings_and_prices_it_was_made_with(tmp_path: Path) -> None:
    for n in (4, 6):
        (tmp_path / f"t{n}.json").write_text(json.dumps(_chat(n)))
    given = await report.analyze([tmp_path], window=8_000, strategies=["ours", "none"], pricing="anthropic",
                                 settings={"stall_wait_usd": 0.0}, prices="5,0.5,25,6.25")
    texts = _texts(write_plot(given, tmp_path / "given.svg"))
    assert "ours with stall_wait_usd=0 (the default is 0.02)" in texts
    assert ("--prices (anthropic's prompt cache): $5.0/M input, $0.5/M cached, $25.0/M output, "
            "$6.25/M cache write") in texts
    plain = await report.analyze([tmp_path], window=8_000, strategies=["ours", "none"])
    said = _texts(write_plot(plain, tmp_path / "plain.svg"))
    assert not any(t.startswith(("ours with", "--prices")) for t in said)
    assert len(said) == len(texts) - 2  # the two lines, and nothing else, are the caption's
