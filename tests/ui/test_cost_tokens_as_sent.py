"""/cost's figure of the input tokens kept out of the requests counts each request's up to a full
window, as its money does: 28 compactions in a 16K window said '~1,916,791,721 input tokens out of
the requests', each request's whole history summed (more than any request could carry), beside a
money figure that counted each at most a full window."""

from __future__ import annotations

import dataclasses
import io

from rich.console import Console

from compact_agent.agent.accounting.costs import Entry, report
from compact_agent.models import REGISTRY
from compact_agent.ui.session_views import render_cost

WINDOW = 16_000


def said(priced: bool) -> tuple[str, int]:
    info = dataclasses.replace(REGISTRY["deepseek-chat"], window=WINDOW,
                               **({} if priced else {"input": 0, "output": 0, "cache_read": 0, "prices_known": False}))
    entries = [Entry("main", info, 12_000, 0, 0, 300, 3_000),  # fits: 3,000 kept out
               *(Entry("main", info, 12_000, 0, 0, 300, 5_000_000) for _ in range(3))]  # 4,000 room each
    r = report(entries)
    c = Console(record=True, width=400, file=io.StringIO(), markup=False)
    c.print(render_cost(r, compactions=28, model_priced=priced))
    return " ".join(c.export_text().split()), r.over_window


def test_the_tokens_kept_out_count_each_request_up_to_a_full_window():
    out, over = said(priced=True)
    assert over == 3
    assert ("28 compactions and trimming what was sent kept ~15,000 input tokens out of the requests; against "
            "sending each request whole (3 requests would not have fit the window whole: counted as a full "
            "window)") in out, out
    assert "15,003,000" not in out


def test_the_same_where_no_price_is_known():
    out, _ = said(priced=False)
    assert ("kept ~15,000 input tokens out of the requests (money unknown); 3 requests would not have fit the "
            "window whole: counted as a full window") in out, out
