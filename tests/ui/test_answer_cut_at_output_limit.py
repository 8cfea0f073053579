"""An answer the model ended at its output limit (finish reason `length`) is said to be cut off
(print mode: tests/e2e/test_print_answer_cut.py): it ended mid-sentence and read as the whole answer."""

from __future__ import annotations

from tests.fakes.openai_server import Reply

from .repl_driver import drive

CUT = "the answer stopped at the model's output limit: it is cut off (ask the model to go on)"


def cut_then_whole(req) -> Reply:
    if "first" in str(req.messages[-1].get("content")):
        return Reply.text("The fix is to change the", finish_reason="length")
    return Reply.text("All done.")


async def test_the_repl_says_an_answer_is_cut_off(tmp_path):
    run = await drive(tmp_path, cut_then_whole, ["first\r", "second\r"])
    out = " ".join(run.out.split())
    assert "The fix is to change the" in out and "All done." in out
    assert out.count(CUT) == 1 and out.index(CUT) < out.index("All done.")

