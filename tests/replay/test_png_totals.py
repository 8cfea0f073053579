"""A `.png` chart shows the totals, as the `.svg` does (needs matplotlib, an optional dependency)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from compact_agent.replay import report
from compact_agent.replay.plot import png_figure, titles_and_folder, write_plot
from tests.replay.test_batch import _chat

matplotlib = pytest.importorskip("matplotlib")




async def test_a_png_chart_has_a_table_of_each_strategys_totals(tmp_path: Path) -> None:
    """It drew the lines only: no cost, no recall, where the .svg has a table of the totals."""
    for n in (4, 6):
        (tmp_path / f"t{n}.json").write_text(json.dumps(_chat(n)))
    analysis = await report.analyze([tmp_path], window=8_000, strategies=["ours", "none"])
    analysis.runs[0].runs[0].failed_compactions = 1
    titles, _ = titles_and_folder([r.transcript.source for r in analysis.runs])
    totals = analysis.totals()
    fig = png_figure(analysis.runs, analysis.window, titles, "heading", totals)
    texts = [t.get_text() for t in fig.findobj(matplotlib.text.Text)]
    texts += [cell.get_text().get_text() for ax in fig.axes for shown in ax.tables
              for cell in shown.get_celld().values()]
    for m in totals:
        assert m.strategy in texts and f"${m.cost:.3f}" in texts, (m.strategy, texts)
    assert {"cost", "recall", "stalls", "compactions"} <= set(texts)
    assert "–" in texts  # nothing measured: as the tables say it
    assert "compactions: (N fail) = those tried that left the history as it was" in texts
    assert any(t.startswith("recall: – = not measured") for t in texts)
    matplotlib.pyplot.close(fig)
    chart = write_plot(analysis, tmp_path / "chart.png")
    assert chart.read_bytes().startswith(b"\x89PNG")
