"""/context says what sized the room it keeps for an answer. That room follows what the model
writes (the longest answer so far, the size of its summaries), so the auto-compaction threshold
moved between two /context calls — `auto-compaction at 11.7k`, then `10.4k` after a compaction,
the reserved area 4.3k, then 5.6k — with nothing said why."""

from __future__ import annotations

import re

from tests.e2e.scripted import is_notes_request, is_summary_request
from tests.fakes.openai_server import Reply

from .repl_driver import drive


def talk(req) -> Reply:
    if is_summary_request(req):  # a long summary: the room kept for the next one grows to the cap
        return Reply.text("<summary>" + "the parser and its tests, in detail; " * 370 + "</summary>")
    if is_notes_request(req):
        return Reply.text("")
    last = str(req.messages[-1].get("content"))
    return Reply.text("essay " * 1_700 if "essay" in last else "ok " + "words " * 300)


async def test_context_says_what_sized_the_reserve_as_it_moves(tmp_path, monkeypatch) -> None:
    monkeypatch.setenv("COMPACT_AGENT_CONFIG", str(tmp_path / "none.toml"))
    keys = ["hello\r", "/context\r", "write an essay\r", *(f"question {i}\r" for i in range(6)), "/context\r",
            "/compact\r", "and now?\r", "/context\r"]  # a compaction learns a summary's size; the next answer applies it
    run = await drive(tmp_path, talk, keys, context_window=16_000)
    heads = re.findall(r"auto-compaction at ([\d.]+)k", run.out)
    rows = re.findall(r"reserved[^\n]*?buffer [\d.]+k", run.out)
    assert len(heads) == 3 and len(rows) == 3, run.out
    assert rows[0] == "reserved: answer 2.7k (room for a summary) + buffer 1.6k", rows
    assert re.fullmatch(r"reserved: answer 3\.\dk \(1\.25x longest answer so far\) \+ buffer 1\.6k", rows[1]), rows
    assert rows[2] == "reserved: answer 4.0k (cap: a quarter of the window) + buffer 1.6k", rows
    assert heads == ["11.7", "11.2", "10.4"], heads  # the threshold moved each time, and each time said why


def test_each_source_of_the_reserve_has_its_words() -> None:
    from types import SimpleNamespace

    from compact_agent.agent.accounting.context_report import reserve_source
    from compact_agent.config import Limits
    from compact_agent.context.plumbing.settings import CompactionSettings

    def said(window: int, max_output: int, reserve: int | None = None, seen: int = 0, **settings: int) -> str:
        s = CompactionSettings(**settings)
        limits = Limits.for_window(window, max_output, s)
        if reserve is not None:
            limits = Limits(**{**limits.__dict__, "output_reserve": reserve})
        return reserve_source(SimpleNamespace(limits=limits, max_output=max_output, settings=s,
                                              schedule=SimpleNamespace(max_output_seen=seen)))

    assert said(16_000, 8_192) == "cap: a quarter of the window"
    assert said(128_000, 8_192) == "cap: the model's max output"
    assert said(128_000, 32_000, summary_output_reserve=12_000) == "cap: summary_output_reserve"
    assert said(128_000, 8_192, reserve=5_000, seen=4_000) == "1.25x longest answer so far"
    assert said(128_000, 8_192, reserve=1_024, seen=100) == "the minimum"
    assert said(128_000, 8_192, reserve=2_700, seen=100) == "room for a summary"
