"""Local servers word a prompt over their window in their own way, and pydantic-ai classifies only
OpenAI's words (and those of a few hosted APIs) as a context-window overflow. A llama.cpp server's
`exceed_context_size_error` and vLLM's "longer than the maximum model length" reached the agent as
a plain HTTP 400: no reactive compaction, no window learned, and the run ended on the provider's
error. Now they are read as what they are: the request is compacted and sent again, and the
server's window, said in the refusal, is learned and kept by the session."""

from __future__ import annotations

import dataclasses

import pytest

from tests.e2e.conftest import Cli
from tests.e2e.scripted import FileTaskAgent, make_project, task_text
from tests.fakes.openai_server import FakeOpenAIServer
from tests.fixed_part import window

N = 12
NOTE = "its window is 8,000, not the 64,000 given; working within 8,000 from now on"


@pytest.mark.parametrize("style", ["llama.cpp", "vllm", "sglang", "tgi", "tabby"])
def test_a_local_servers_refusal_is_compacted_and_its_window_learned(cli: Cli, style: str) -> None:
    """SGLang, TGI and TabbyAPI in their own words (tests/fakes/_wire.py names the source of each);
    TGI's refusal of a streamed request comes inside the stream, after an HTTP 200."""
    total = make_project(cli.cwd, N)
    with FakeOpenAIServer(FileTaskAgent(n=N), window=8_000, model="local", overflow=style) as server:  # type: ignore[arg-type]
        at = ("-m", "local", "--base-url", server.base_url, "--api-key", "k")
        first = cli("-p", task_text(N), "--context-window", "64k", "-y", *at)
        assert first.code == 0, first.stderr
        assert f"FINAL SUM: {total}" in first.stdout
        assert len(server.rejected) == 1, [(status, body) for _, status, body in server.rejected]
        assert server.rejected[0][1] == (422 if style == "tgi" else 400)
        assert server.rejected[0][0].stream  # so TGI's came inside the stream
        notes = [line for line in first.stderr.splitlines() if NOTE in line]
        assert len(notes) == 1, first.stderr
        assert "besides the room" not in notes[0], notes[0]  # the request asked for none: the prompt was over

        status = cli("-c", "-p", "/status", *at)
        assert status.code == 0, status.stderr
        assert "/ window 8,000 tokens" in status.stdout, status.stdout


def test_a_server_that_cuts_prompts_silently_is_found_out_by_its_reports(cli: Cli) -> None:
    """An Ollama server given a prompt longer than its context length keeps the prompt's end, that
    long, answers from it, and reports that length as the input: no refusal, and the model never
    sees the task or the earlier files. The first report far below the calibrated estimate of a
    request that grew says so, and the largest size it was seen to take is that limit: it is learned
    like a refused request's, said once, and kept."""
    total = make_project(cli.cwd, N)
    agent = FileTaskAgent(n=N)
    cut_requests: list[int] = []
    cut = window(5_000)  # as much room beside the system prompt and tools as at six tools
    cut_note = f"its window is {cut:,}, not the 64,000 given; working within {cut:,} from now on"

    def cuts_silently(req):  # the server's count of the prompt it kept
        if req.prompt_tokens > cut:
            cut_requests.append(req.prompt_tokens)
            reply = agent(req)
            return dataclasses.replace(reply, usage={"prompt_tokens": cut, "prompt_tokens_details": {"cached_tokens": 0}})
        return agent(req)

    with FakeOpenAIServer(cuts_silently, window=128_000, model="local") as server:
        at = ("-m", "local", "--base-url", server.base_url, "--api-key", "k")
        first = cli("-p", task_text(N), "--context-window", "64k", "-y", *at)
        assert first.code == 0, first.stderr
        assert f"FINAL SUM: {total}" in first.stdout
        notes = [line for line in first.stderr.splitlines() if cut_note in line]
        assert len(notes) == 1, first.stderr
        assert f"the server at {server.base_url} cut requests" in notes[0] and "without saying so" in notes[0]
        assert "OLLAMA" not in notes[0]  # an address that is not Ollama's: its setting is not named
        assert len(cut_requests) == 1, cut_requests  # the one that said it; none after
        sent = len(server.requests)

        status = cli("-c", "-p", "/status", *at)
        assert f"/ window {cut:,} tokens" in status.stdout, status.stdout
        said = " ".join(status.stdout.split())  # the server named, as the line that said it learned it named it
        assert f"learned from prompts the server at {server.base_url} cut to it without saying so," in said, status.stdout
        assert ", not the 64,000 the session remembers" in said, status.stdout  # no flag of this run gave it
        again = cli("-c", "-p", "read data/file_00.txt again", "-y", *at)
        assert again.code == 0, again.stderr
        assert len(cut_requests) == 1 and len(server.requests) > sent


def test_a_server_window_too_small_for_the_agent_is_said_in_the_command_lines_words(cli: Cli) -> None:
    """A server that cuts prompts to 1,200 tokens leaves too little room for the instructions, the
    tools and a round: the run ends on one line that says what to change here (the library's
    advice, `window=` to `ContextManager`, meant nothing to a command-line user)."""
    make_project(cli.cwd, N)
    agent = FileTaskAgent(n=N)

    def cuts_silently(req):
        reply = agent(req)
        return dataclasses.replace(reply, usage={"prompt_tokens": 1_200}) if req.prompt_tokens > 1_200 else reply

    with FakeOpenAIServer(cuts_silently, window=128_000, model="local") as server:
        run = cli("-p", task_text(N), "--context-window", "64k", "-y", "-m", "local", "--base-url",
                  server.base_url, "--api-key", "k")
    assert run.code == 1
    last = run.stderr.strip().splitlines()[-1]
    assert "even shrunk as far as it goes, but the context window is 1,200" in last, run.stderr
    assert "use a larger --context-window" in last and "start that server with a larger one" in last
    assert "ContextManager" not in run.stderr and "CompactionSettings" not in run.stderr
