"""`/rewind` to a message `!cmd` output went with holds that output for the message again.

The prompt came back in the input, and the output of the command run before it did not: sent again,
the message went without what the command had printed, and nothing said so.
"""

from __future__ import annotations

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
