"""/cost in a session that has made no request yet says so in one line: it showed a table of zeros
with a lone `total` row. A model with unknown prices says money is not counted, not `$0`."""

from __future__ import annotations

from tests.fakes.openai_server import Reply

from .repl_driver import drive


def said(out: str) -> list[str]:
    """The lines /cost printed: those after the banner (a session never answered has no goodbye)."""
    lines = [line.rstrip() for line in out.splitlines() if line.strip()]
    assert lines[0].startswith("compact-agent · "), lines
    return lines[1:]


async def test_cost_before_any_request_is_one_line(tmp_path):
    run = await drive(tmp_path, lambda req: Reply.text("ok"), ["/cost\r"], model="deepseek-chat")
    assert said(run.out) == ["no requests yet in this session: no tokens used, nothing spent"], run.out
    assert "total" not in run.out and "$0.0000" not in run.out


async def test_cost_before_any_request_of_an_unpriced_model(tmp_path):
    run = await drive(tmp_path, lambda req: Reply.text("ok"), ["/cost\r"])  # fake-model: no known prices
    assert said(run.out) == ["no requests yet in this session (prices unknown for fake-model)"], run.out


async def test_cost_after_a_request_is_the_table(tmp_path):
    run = await drive(tmp_path, lambda req: Reply.text("ok"), ["hi\r", "/cost\r"], model="deepseek-chat")
    assert "tokens and cost, whole session (every run)" in run.out and "no requests yet" not in run.out
