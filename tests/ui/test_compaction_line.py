"""The line a compaction prints and /context measure the same thing: the whole request as sent,
the system prompt and the tools with the messages.

Right after a resume (no request of this run yet) `/compact` counted the messages only:
`compacted (manual, full): 8,965 → 2,100 tokens`, then /context said `context 3.1k` (its 2,100 and
the system prompt and tools it always adds)."""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

from tests.e2e.scripted import is_notes_request, is_summary_request
from tests.fakes.openai_server import Reply

from .repl_driver import drive


def talker(summary_sentences: int, answer_words: int) -> Callable[[Any], Reply]:
    """A model that answers at length, writes summaries of `summary_sentences`, and no session notes."""
    def talk(req: Any) -> Reply:
        if is_summary_request(req):
            return Reply.text("<summary>" + "We discussed the parser and its tests. " * summary_sentences + "</summary>")
        if is_notes_request(req):
            return Reply.text("")
        return Reply.text("answer " + "words " * answer_words)
    return talk


talk = talker(40, 300)


def compacted_to(out: str) -> int:
    m = re.search(r"compacted \(manual, full\): ([\d,]+) → ([\d,]+) tokens", out)
    assert m, out
    return int(m[2].replace(",", ""))


def context_size(out: str) -> float:
    m = re.search(r"context ([\d.]+)k / ", out)
    assert m, out
    return float(m[1]) * 1000


async def test_compact_right_after_a_resume_counts_what_context_counts(tmp_path, monkeypatch) -> None:
    monkeypatch.setenv("COMPACT_AGENT_CONFIG", str(tmp_path / "none.toml"))
    await drive(tmp_path, talk, [f"question {i} about the parser\r" for i in range(4)], context_window=16_000)
    run = await drive(tmp_path, talk, ["/compact\r", "/context\r"], continue_last=True, context_window=16_000)
    after, shown = compacted_to(run.out), context_size(run.out)
    assert abs(after - shown) <= 60, (after, shown, run.out)  # /context shows tenths of a thousand


async def test_compact_after_a_request_counts_what_context_counts(tmp_path, monkeypatch) -> None:
    monkeypatch.setenv("COMPACT_AGENT_CONFIG", str(tmp_path / "none.toml"))
    keys = [*(f"question {i} about the parser\r" for i in range(4)), "/compact\r", "/context\r"]
    run = await drive(tmp_path, talk, keys, context_window=16_000)
    after, shown = compacted_to(run.out), context_size(run.out)
    assert abs(after - shown) <= 60, (after, shown, run.out)


def test_the_line_says_how_long_a_summary_took_and_nothing_of_a_record() -> None:
    """Every record said `in 0.0s` (it asks no model), and so did a summary from a fast local
    server (rounded to tenths of a second)."""
    from compact_agent.context.plumbing.events import CompactionEvent
    from compact_agent.ui.render import compact_line

    def line(action: str, ms: float) -> str:
        return compact_line(CompactionEvent("compact", action, 8965, 3119, trigger="auto", duration_ms=ms))

    assert line("record", 2.4) == "compacted (auto, record written without a model): 8,965 → 3,119 tokens"
    assert line("session_memory", 310.0) == "compacted (auto, session notes as the summary): 8,965 → 3,119 tokens"
    assert line("full", 42.3) == "compacted (auto, full): 8,965 → 3,119 tokens in 42 ms"
    assert line("full", 2345.0) == "compacted (auto, full): 8,965 → 3,119 tokens in 2.3s"
