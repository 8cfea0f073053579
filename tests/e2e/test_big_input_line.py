"""The line said when an input goes to a file says why, in the figures it was decided on.

An input goes as its two ends and a file once it is over half the tokens at which the conversation
is compacted, also when a request could have held it whole (the conversation would be compacted at
once, and the input with it). The line said 'the input is more than a request can hold' of such an
input too: a 13,000-token log in a 32,000-token window. It now says 'is over half of the 24,704 at
which the conversation is compacted in the 32,000-token window', and 'is more than the window holds'
only of an input that is; a server's smaller window, learned from a refusal, is said the same way."""

from __future__ import annotations

from tests.e2e.conftest import Cli
from tests.fakes.openai_server import FakeOpenAIServer, Reply


def test_an_input_a_request_could_hold_is_not_said_to_be_more_than_it_can(cli: Cli) -> None:
    log = "".join(f"10:{i // 60 % 60:02d}:{i % 60:02d} worker-{i % 7} job {i:05d} done\n" for i in range(1_600))
    assert 12_352 < len(log) // 4 < 24_704  # over half the threshold of a 32,000 window, under it whole
    with FakeOpenAIServer(lambda req: Reply.text("ok")) as server:
        run = cli("-p", "explain this log", "--model", "fake-model", "--base-url", server.base_url, "--api-key", "k",
                  "--context-window", "32000", input=log)
    assert run.code == 0, run.stderr
    assert "more than a request can hold" not in run.stderr
    [line] = [x for x in run.stderr.splitlines() if "the model gets its beginning and end" in x]
    assert "is over half of the 24,704 at which the conversation is compacted in the 32,000-token window: " in line


def test_the_line_says_more_than_the_window_only_of_an_input_that_is() -> None:
    from compact_agent.agent.run.big_input import cut_line

    assert cut_line(40_000, 24_704, 32_000, "/p/in.txt") == (
        "the input (about 40,000 tokens) is more than the 32,000-token window holds: the model gets its beginning "
        "and end, and reads the rest from /p/in.txt")
    assert cut_line(3_000, 5_200, 8_000, "/p/in.txt", server="the server at http://10.0.0.5:8000/v1") == (
        "the input (about 3,000 tokens) is over half of the 5,200 at which the conversation is compacted in the "
        "8,000-token window of the server at http://10.0.0.5:8000/v1: the model gets its beginning and end, and "
        "reads the rest from /p/in.txt")
