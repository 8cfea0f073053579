"""`/compact` refused because it would free too little says so in plain sentences, with the real
figures: what it would free of the context now, what it would keep even without a summary, part by
part. It read as one clause strung on dashes ('… would keep at least 1,471 tokens — your messages
and the files changed, before any summary 257 · the newest message verbatim 83 · instructions and
tools 1,131 tokens — of the 1,582 now, and its summary would take about all the 111 it could free; …')."""

from __future__ import annotations

import re

from tests.e2e.scripted import is_summary_request
from tests.fakes.openai_server import FakeOpenAIServer, Reply

from .repl_driver import drive


def answer(req) -> Reply:
    return Reply.text("<summary>the work so far</summary>" if is_summary_request(req) else "answer " * 40)


def number(text: str) -> int:
    return int(text.replace(",", ""))


async def test_a_compaction_that_would_free_too_little_is_refused_in_plain_sentences(tmp_path):
    with FakeOpenAIServer(answer) as server:
        questions = [f"question {i} " + "q " * 40 + "\r" for i in range(4)]
        run = await drive(tmp_path, answer, [*questions, "/compact\r"], server=server)
        summaries = sum(is_summary_request(r) for r in server.requests)
    [line] = [x for x in run.out.splitlines() if x.startswith("not compacted")]
    said = re.fullmatch(r"not compacted: a compaction would free at most ([\d,]+) of the ([\d,]+) tokens in use, "
                        r"about what its summary would take\. Even without a summary it would keep ([\d,]+): "
                        r"your messages and the files changed ([\d,]+), the newest message ([\d,]+), "
                        r"instructions and tools ([\d,]+)\. It is worth it once the conversation is longer\. "
                        r"Nothing was changed\.", line.rstrip())
    assert said, line
    free, now, keep, mine, newest, fixed = (number(g) for g in said.groups())
    assert 0 < free == now - keep and mine + newest + fixed == keep, line  # the figures add up
    assert summaries == 0  # refused before a summary was paid for
