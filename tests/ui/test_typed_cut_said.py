"""A compaction that cuts the user's own long messages says so in its line: the compaction message
carries what the user typed word for word up to a budget (user_messages.py), and past it cuts the
older ones to their first characters and the newest to its two ends. The model was told, in that
message; the user, whose pasted text was now cut, was not."""

from __future__ import annotations

import re

from compact_agent.context import Event
from compact_agent.ui.render import compacted_text
from tests.e2e.scripted import is_notes_request, is_summary_request
from tests.fakes.openai_server import Reply

from .repl_driver import drive, pasted


def answer(req) -> Reply:
    if is_summary_request(req):
        return Reply.text("<summary>1. Primary Request and Intent: read the pasted logs.</summary>")
    if is_notes_request(req):
        return Reply.text("")
    return Reply.text("noted")


async def test_the_compaction_line_says_how_many_long_messages_of_yours_it_cut(tmp_path):
    # A 16K window carries 2,000 tokens of typed messages (8,000 characters): four of 5,000 do not fit.
    typed = [pasted(f"LOG{i} " + f"line {i} of the log " * 250) + "\r" for i in range(4)]
    run = await drive(tmp_path, answer, [*typed, "/compact\r", "go on\r"], context_window=16_000)
    [line] = [line for line in run.out.splitlines() if line.startswith("compacted (manual, ")]
    said = re.search(r"; (\d) long messages of yours cut short \(their full text is in the archive\)$", line.strip())
    assert said is not None, line
    # As many as the compaction message carries cut (the next request sends it).
    sent = [str(m["content"]) for m in run.server.requests[-1].messages if m.get("role") == "user"]
    summary = next(text for text in sent if "The user's messages" in text)
    assert int(said[1]) == summary.count("[cut; the whole message is in the archived transcript]") \
        + summary.count("[the middle of this message is cut here"), summary
    assert "full transcript archived at " in run.out


def long_answers(req) -> Reply:
    return answer(req) if is_summary_request(req) or is_notes_request(req) else Reply.text("done " * 1500)


async def test_nothing_is_said_of_short_messages(tmp_path):
    typed = ["fix the parser\r", "and the tests\r", "and the docs\r", "/compact\r"]
    run = await drive(tmp_path, long_answers, typed, context_window=16_000)
    [line] = [line for line in run.out.splitlines() if line.startswith("compacted (manual, ")]
    assert "of yours" not in line, line


def test_cut_and_left_out_are_said_together() -> None:
    def line(**detail: int) -> str:
        return compacted_text(Event("compact", "full", 9_000, 3_000, trigger="auto", detail=detail))
    assert line(typed_cut=1, typed_left_out=2).endswith(
        ": 9,000 → 3,000 tokens; 1 long message of yours cut short and 2 left out (their full text is in the archive)")
    assert line(typed_left_out=1).endswith("; 1 message of yours left out (its full text is in the archive)")
    assert line(typed_cut=0) == "compacted (auto, full): 9,000 → 3,000 tokens"
