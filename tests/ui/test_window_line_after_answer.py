"""A server's window learned from one of its replies (a server that cut the prompt and reported
the cut size) is said after the turn's answer: said when learned, the line stood inside the
answer the REPL was still writing out, between its last paragraphs."""

from __future__ import annotations

import dataclasses

from tests.fakes.openai_server import FakeOpenAIServer, Reply

from .repl_driver import drive, pasted

CUT = 2_000
ANSWER = "first paragraph of the essay\n\nlast paragraph of the essay\n\nMarkers: done"


async def test_a_window_learned_from_a_reply_is_said_after_the_answer(tmp_path) -> None:
    def cuts(req):
        reply = Reply.text(ANSWER)
        return dataclasses.replace(reply, usage={"prompt_tokens": CUT}) if req.prompt_tokens > CUT else reply

    long = "Requirement: " + "the calculator must keep decimal precision; " * 250  # ~2.8K tokens
    with FakeOpenAIServer(cuts) as server:
        run = await drive(tmp_path, None, [pasted(long) + "\r", pasted(long) + " again\r"], server=server,
                          context_window=64_000)
    out = run.out
    note = out.index(f"its window is {CUT:,}")
    second_answer = out.rindex("Markers: done")
    assert note > second_answer, out[second_answer - 200:note + 200]
