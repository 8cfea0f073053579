"""A session kept its latest usage report for the next run's first to be compared with (saved_state.py
`report`), but not the images of its estimate: the next run weighed them at the estimate's flat 1,600
tokens each, as if they were text the request had grown by. A request of 8,000 tokens of text and two
images (estimated 11,200, the server counting 8,170), resumed, then one of 10,000 and the same images
that the server cut to 5,500: against 11,200 it had not grown, and the cut went unseen."""

from __future__ import annotations

from compact_agent.context import ContextManager
from compact_agent.context.wiring import Internals

SERVER = "local at http://127.0.0.1:11434/v1"


def manager() -> ContextManager:
    return ContextManager.wired(Internals(server=SERVER), window=32_000)


def test_a_resumed_sessions_first_comparison_leaves_the_kept_reports_images_out() -> None:
    before = manager()
    assert before.calibration.observe(8_170, 11_200, flat=3_200)
    state = before.layer_state()
    assert state["learned"]["report"] == [8_170, 11_200, 0, 0] and state["learned"]["report_media"] == 3_200

    resumed = manager()
    resumed.load_layer_state(state)
    # Text grew from 8,000 to 10,000 (over 2%), and 5,500 is under the 8,170 before it less its images
    # as the provider may have counted them (3,200 at the kept ratio 8,170/11,200: 2,335), less half a
    # percent: 8,129 - 2,335 = 5,794. A cut; the window the largest size the server took.
    assert not resumed.calibration.observe(5_500, 13_200, flat=3_200)
    assert resumed.calibration.cut_to() == 8_170


def test_a_report_without_images_keeps_none_and_a_report_of_this_process_takes_none() -> None:
    before = manager()
    assert before.calibration.observe(8_000, 8_000)
    assert "report_media" not in before.layer_state()["learned"]
    ran = manager()
    assert ran.calibration.observe(9_000, 9_000)  # its own report: the kept one is not taken, nor its images
    ran.load_layer_state({"learned": {"measured_at": SERVER, "report": [8_170, 11_200, 0, 0], "report_media": 3_200}})
    assert ran.calibration.kept_report() == (9_000, 9_000, 0, 0)
    assert ran.calibration._last_unsure == 0
