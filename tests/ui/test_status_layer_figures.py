"""/status says what the layers keep out of the context now, of the context /context pictures.
Headed 'what the layers did this run … tokens freed', it said 'large tool results moved to files
(a preview stays) 93,642' in a 16K window, read as tokens freed from a 16K context; it was a total
for the run (twelve results, each kept out of every request since, and, after a compaction, results
no longer in the conversation at all). Now the table is headed 'what the layers keep out of the
context now' and gives the tokens each layer takes out of the context as it stands: what the
conversation holds and the next request does not."""

from __future__ import annotations

import re

from tests.fakes.openai_server import Reply

from .repl_driver import drive


def answer(req) -> Reply:
    if req.last_user_text().startswith("show"):
        if req.messages[-1]["role"] == "tool":
            return Reply.text("seen")
        return Reply.tools([("bash", {"command": "seq 1 6000"})])
    return Reply.text("ok")


async def test_status_says_what_a_spilled_result_keeps_out_now_not_a_sum_over_requests(tmp_path):
    keys = ["show the numbers\r", *(f"and {n}\r" for n in range(6)), "/status\r"]
    run = await drive(tmp_path, answer, keys, context_window=16_000, permission_mode="yes")
    assert "what the layers keep out of the context now" in run.out, run.out
    [moved] = re.findall(r"large tool results moved to files \(a preview stays\)\s*│\s*([\d,]+)", run.out)
    assert 0 < int(moved.replace(",", "")) < 16_000, run.out
