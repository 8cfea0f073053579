"""`/compact --preview` says its parts in figures that add up to the total it says beside them:
each part was measured and rounded on its own, and the parts of `→ 2,587 tokens` made 2,592."""

from __future__ import annotations

import re
from pathlib import Path

from compact_agent.ui.compact_command import kept_words, summed_to
from tests.e2e.scripted import is_notes_request, is_summary_request
from tests.fakes.openai_server import Reply

from .repl_driver import drive


def answer(req) -> Reply:
    if is_summary_request(req):
        return Reply.text("<summary>1. Primary Request and Intent: " + "word " * 50 + "</summary>")
    if is_notes_request(req):
        return Reply.text("")
    return Reply.text("ok " * 1500)


async def test_the_parts_a_preview_shows_add_up_to_its_total(tmp_path: Path) -> None:
    run = await drive(tmp_path, answer, ["one\r", "two\r", "three\r", "/compact --preview\r"], answers="n\n")
    out = " ".join(run.out.split())
    shown = re.search(r"preview of /compact \(full\): [\d,]+ → ([\d,]+) tokens; .*? keeps: (.*?) tokens", out)
    assert shown is not None, out
    parts = [int(n.replace(",", "")) for n in re.findall(r" ([\d,]+)(?= ·|$)", shown[2])]
    assert len(parts) >= 3 and sum(parts) == int(shown[1].replace(",", "")), shown[0]


def test_shares_go_by_largest_remainder_and_leave_unsaid_parts_alone(tmp_path: Path) -> None:
    parts = {"summary": 297, "verbatim": 1135, "verbatim_messages": 2, "fixed": 1160, "files": 40, "file_paths": []}
    assert kept_words(parts, tmp_path, "full", 2587) == (
        "the summary 296 · the newest 2 messages verbatim 1,133 · instructions and tools 1,158 tokens")
    assert summed_to(parts, 2587)["files"] == 40  # no file read again: not said, so no share
    assert summed_to(parts, 2592) == parts  # adding up already: as they were
    assert kept_words({"summary": 1, "verbatim": 1, "verbatim_messages": 1, "fixed": 1}, tmp_path, total=4) == (
        "the summary 2 · the newest message verbatim 1 · instructions and tools 1 tokens")  # a tie: the first said
