"""`/rewind` to a message `!cmd` output went with holds that output for the message again.

The prompt came back in the input, and the output of the command run before it did not: sent again,
the message went without what the command had printed, and nothing said so.
"""

from __future__ import annotations

from tests.e2e.scripted import is_summary_request
from tests.e2e.test_rewind_after_compaction import WORDS
from tests.fakes.openai_server import Reply
from tests.ui.repl_driver import drive


def echo(req) -> Reply:
    return Reply.text("ok")


async def test_the_output_of_a_command_goes_again_with_the_rewound_message(tmp_path):
    run = await drive(tmp_path, echo, ["!echo hello from shell\r", "what did it print\r", "/rewind 0\r", "\r"],
                      answers="y\n")
    sent = [[m["content"] for m in req.messages if m.get("role") == "user"] for req in run.server.requests]
    assert len(sent) == 2, run.out
    went = "I ran this shell command myself:\n$ echo hello from shell\nhello from shell\nexit code: 0\n\nwhat did it print"
    assert sent[0] == [went] and sent[1] == [went], sent  # sent again as it went the first time
    assert "⎿ the output of !echo hello from shell goes with it again" in run.out, run.out


def echo_or_summary(req) -> Reply:
    """"ok" at length (for /compact to be worth it), and a summary when one is asked for."""
    return Reply.text("<summary>1. Primary Request and Intent: a command was run.</summary>" if is_summary_request(req)
                      else "ok " + WORDS)


async def test_it_does_so_for_a_message_before_a_compaction_too(tmp_path):
    """The output is found in the transcript the compaction archived, as the prompt is
    (test_rewind_prompt_from_archive.py): the message came back without it."""
    run = await drive(tmp_path, echo_or_summary, ["!echo hello from shell\r", "what did it print\r", "and then\r",
                                                  "/compact\r", "/rewind 0\r", "\r"], answers="y\n")
    asked = [req for req in run.server.requests if "what did it print" in str(req.messages[-1].get("content"))]
    went = "I ran this shell command myself:\n$ echo hello from shell\nhello from shell\nexit code: 0\n\nwhat did it print"
    assert len(asked) == 2 and all(req.messages[-1]["content"] == went for req in asked), [
        req.messages[-1] for req in asked]
    assert "the conversation is back to its start, before the compaction" in " ".join(run.out.split()), run.out
    assert "⎿ the output of !echo hello from shell goes with it again" in run.out, run.out
