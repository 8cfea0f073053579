"""`-p` against a server whose tokenizer counts the system prompt and tool definitions at four times
characters/4, past its 4,096-token window: the start's check (by our estimate) lets the window pass,
and the server refuses the first request. No compaction can make room there, so the run ends in one
line that says so in our words, with both figures and what to do. It printed two: a compaction that
had failed ("the summary request would take 6,528 tokens ... not sent"), then "the request is too long
for the server's window of 4,096 tokens and could not be shrunk to fit it"."""

from __future__ import annotations

import re

from tests.e2e.conftest import Cli
from tests.fakes.openai_server import FakeOpenAIServer, Reply


def test_a_system_prompt_and_tools_past_the_servers_window_is_one_line(cli: Cli) -> None:
    with FakeOpenAIServer(lambda req: Reply.text("ok"), window=4096, model="local", chars_per_token=1.0) as server:
        run = cli("-p", "hello", "--context-window", "4096", "-m", "local", "--base-url", server.base_url,
                  "--api-key", "k")
    assert run.code == 1, run.stdout + run.stderr
    [line] = run.stderr.splitlines()
    said = re.fullmatch(r"compact-agent: this request needs about ([\d,]+) tokens for its system prompt \(instruction "
                        r"files included\) and tool definitions alone \(as the provider counts them\), but the "
                        r"context window is 4,096: use fewer tools or MCP servers, or a shorter instructions file "
                        r"\(CLAUDE\.md, AGENTS\.md\), or use a larger --context-window \(or, where the window is a "
                        r"server's own, start that server with a larger one\)", line)
    assert said is not None, line
    [refused] = server.requests  # the one the server refused: nothing else was sent
    assert abs(int(said[1].replace(",", "")) - refused.prompt_tokens) < 0.02 * refused.prompt_tokens
    assert len(server.rejected) == 1
