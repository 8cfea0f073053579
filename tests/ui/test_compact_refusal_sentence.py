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


async def test_compact_from_n_refused_says_it_keeps_the_first_messages_not_the_newest(tmp_path):
    """`--from N` summarises messages N and later and keeps those before N, the first ones: the
    refusal called them 'the newest 4 messages'."""
    def short(req) -> Reply:
        return Reply.text("<summary>" + "the work so far " * 60 + "</summary>" if is_summary_request(req) else "ok")

    with FakeOpenAIServer(short) as server:
        questions = [f"question {i} " + "q " * 200 + "\r" for i in range(3)]
        run = await drive(tmp_path, short, [*questions, "/compact --from 4\r", "/compact --up-to 2\r"], server=server)
    lines = [x for x in run.out.splitlines() if x.startswith("not compacted")]
    assert len(lines) == 2, run.out
    assert ", the first 4 messages " in lines[0] and "newest" not in lines[0], lines[0]  # 0-3 kept, 4-5 summarised
    assert ", the newest 4 messages " in lines[1], lines[1]  # 0-1 summarised, 2-5 kept
