"""A server that cuts prompts without saying so (Ollama past its context length) shows it only in two
usage reports in a row: requests that grew, reported at one size. A script that asks one question
per run (`-c -p`, one request each) made one report per process, so the cut was never found out and
the model went on answering from the end of each prompt. The session now keeps the latest report,
and a run's first report is compared with the previous run's last."""

from __future__ import annotations

from tests.e2e.conftest import Cli
from tests.fakes.openai_server import FakeOpenAIServer, Reply

CUT = 5_000
NOTE = f"its window is {CUT:,}, not the 64,000 given; working within {CUT:,} from now on"


def test_a_silent_cut_is_found_out_across_runs_of_one_request(cli: Cli) -> None:
    cut_requests: list[int] = []

    def answers(req):  # text only: each run is one request
        if req.prompt_tokens > CUT:
            cut_requests.append(req.prompt_tokens)
            return Reply.text("noted", usage={"prompt_tokens": CUT, "completion_tokens": 2,
                                              "prompt_tokens_details": {"cached_tokens": 0}})
        return Reply.text("noted")

    with FakeOpenAIServer(answers, window=128_000, model="local") as server:
        at = ("-m", "local", "--base-url", server.base_url, "--api-key", "k", "--context-window", "64k")
        runs = []
        for i in range(5):
            note = f"note {i}: " + "words of a long note " * 300  # ~1,600 tokens a run
            run = cli(*(("-c",) if i else ()), "-p", note, *at)
            assert run.code == 0, run.stderr
            runs.append(run)
            if len(cut_requests) >= 2:
                break
        assert len(cut_requests) == 2, (cut_requests, [r.stderr for r in runs])  # each run sent one request
        said = [line for line in runs[-1].stderr.splitlines() if NOTE in line]
        assert len(said) == 1 and "without saying so" in said[0], runs[-1].stderr
        assert not any(NOTE in r.stderr for r in runs[:-1])

        status = cli("-c", "-p", "/status", *at)
        assert f"/ window {CUT:,} tokens" in status.stdout, status.stdout
