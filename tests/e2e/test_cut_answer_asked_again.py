"""The answer to a prompt a server cut without saying so is not the step's answer: the model answered
without the prompt's start (here the task), and the run went on from it, or ended on it. Found out from
the report of that request, the window is learned, the request is compacted to it and sent again once,
and that answer is the one kept."""

from __future__ import annotations

import dataclasses
import json

from tests.e2e.conftest import Cli
from tests.e2e.scripted import TASK_ID, FileTaskAgent, is_summary_request, make_project, task_text
from tests.e2e.test_ollama_cuts_found import kept_by_ollama
from tests.fakes._wire import count_tokens
from tests.fakes.openai_server import ChatRequest, FakeOpenAIServer, Reply, message_text

N = 14
WINDOW = 9_000
LOST = "I no longer know what the task is."  # what FileTaskAgent answers a prompt without the task


@dataclasses.dataclass
class CutsAndAnswersWhatIsLeft:
    """An Ollama-like server: whole turns dropped from the front to fit `WINDOW`, the kept size reported,
    and the model answering only what was kept (a prompt that lost the task gets `LOST`)."""

    agent: FileTaskAgent
    sent: list[tuple[int, int, bool, bool]] = dataclasses.field(default_factory=list)  # (sent, kept, task kept, summary)

    def __call__(self, req: ChatRequest) -> Reply:
        kept = kept_by_ollama(req.body, WINDOW)
        size = count_tokens({**req.body, "messages": kept})
        seen = dataclasses.replace(req, messages=kept, body={**req.body, "messages": kept}, prompt_tokens=size)
        self.sent.append((req.prompt_tokens, size, TASK_ID in "\n".join(message_text(m) for m in kept),
                          is_summary_request(req)))
        reply = self.agent(seen)
        return dataclasses.replace(reply, usage={"prompt_tokens": size, "prompt_tokens_details": {"cached_tokens": 0}})


def test_the_answer_to_a_cut_prompt_is_asked_again_within_the_window_learned(cli: Cli) -> None:
    total = make_project(cli.cwd, N, filler_chars=9_000)
    server_side = CutsAndAnswersWhatIsLeft(FileTaskAgent(n=N))
    with FakeOpenAIServer(server_side, window=10**7, model="local") as server:
        run = cli("-p", task_text(N), "-y", "-m", "local", "--base-url", server.base_url, "--api-key", "k")
    trail = json.dumps(server_side.sent)
    assert run.code == 0, run.stderr
    assert "without saying so" in run.stderr, run.stderr
    cut = [i for i, (sent, kept, _, _) in enumerate(server_side.sent) if kept < sent]
    assert len(cut) == 1, trail  # the one request found cut; its answer was the model's without the task
    assert not server_side.sent[cut[0]][2], trail
    assert len(server_side.sent) > cut[0] + 1, trail  # without: the run ended on the cut prompt's answer
    again = server_side.sent[cut[0] + 1]  # the same step, compacted to the window learned: taken whole, task kept
    assert again[0] == again[1] and again[2], trail
    # the window learned is the largest size the server took (6,792 here, of 9,584 sent, 6,753 kept): under it
    assert again[0] <= max(kept for _, kept, _, _ in server_side.sent[:cut[0] + 1]), trail
    assert f"FINAL SUM: {total}" in run.stdout, (run.stdout, trail)  # without: the run ended on LOST
    files = list(cli.home.rglob("*.jsonl"))
    assert files and TASK_ID in "\n".join(p.read_text() for p in files)
    saved = "\n".join(p.read_text() for p in files)
    assert LOST not in saved, trail  # the dropped answer is in no saved history
