"""An Ollama server past its context length refuses nothing: it drops whole messages from the front
(the system message kept, a tool call never parted from its results), answers from the rest and
reports that as the prompt's size. The sizes it keeps vary by a message (6,690, 6,726, 6,761, 6,657,
7,870 for a 9,000 window), and the cut was found only from two reports in a row within half a
percent: against a 9,000 window with 32,768 assumed, 25 of 28 requests were cut without a word, the
task gone from each. Found from the first report far below the calibrated estimate, the window is
learned there, and no later request (a summary request neither) goes over it; the calibration the cut
reports would have taught (sizes ~35% low) is not kept."""

from __future__ import annotations

import dataclasses
import json
from typing import Any

import pytest

from compact_agent.agent.run import server_windows
from tests.e2e.conftest import Cli
from tests.e2e.scripted import TASK_ID, FileTaskAgent, is_summary_request, make_project, task_text
from tests.fakes._wire import count_tokens
from tests.fakes.openai_server import ChatRequest, FakeOpenAIServer, Reply, message_text

N = 14


def kept_by_ollama(body: dict[str, Any], window: int) -> list[dict[str, Any]]:
    """The messages such a server keeps of a request: its system messages and the newest others that
    fit `window` (counted as the fake server counts), dropped from the front a whole turn at a time:
    an assistant message with the tool results after it goes, or stays, as one."""
    system = [m for m in body["messages"] if m.get("role") == "system"]
    turns: list[list[dict[str, Any]]] = []
    for m in body["messages"]:
        if m.get("role") == "system":
            continue
        if m.get("role") == "tool" and turns:
            turns[-1].append(m)
        else:
            turns.append([m])
    while len(turns) > 1 and count_tokens({**body, "messages": system + sum(turns, [])}) > window:
        turns.pop(0)
    return system + sum(turns, [])


@dataclasses.dataclass
class OllamaCutting:
    """Answers as the file task's model does from what the server kept; a prompt that lost the task
    is answered as if the model had guessed it (so that the run goes on, as a model often does)."""

    window: int
    agent: FileTaskAgent
    sent: list[tuple[int, int, int, bool]] = dataclasses.field(default_factory=list)  # (sent, kept, max_tokens, summary)

    def __call__(self, req: ChatRequest) -> Reply:
        kept = kept_by_ollama(req.body, self.window)
        seen = dataclasses.replace(req, messages=kept, body={**req.body, "messages": kept},
                                   prompt_tokens=count_tokens({**req.body, "messages": kept}))
        asked = req.body.get("max_completion_tokens") or req.body.get("max_tokens") or 0
        self.sent.append((req.prompt_tokens, seen.prompt_tokens, asked, is_summary_request(req)))
        lost = TASK_ID not in "\n".join(message_text(m) for m in kept)
        reply = self.agent(req if lost and not is_summary_request(req) else seen)
        return dataclasses.replace(reply, usage={"prompt_tokens": seen.prompt_tokens,
                                                 "prompt_tokens_details": {"cached_tokens": 0}})


@pytest.mark.parametrize(("window", "given"), [(9_000, ()), (4_096, ("--context-window", "16k"))])
def test_a_server_cutting_prompts_is_found_at_its_first_cut(cli: Cli, window: int, given: tuple[str, ...]) -> None:
    make_project(cli.cwd, N, filler_chars=9_000)
    for k, f in enumerate(sorted((cli.cwd / "data").glob("file_*.txt"))):  # what the server keeps varies by one
        head, _, body = f.read_text().partition("\n")
        f.write_text(f"{head}\n{body[:1_500 + k * 2_900 % 7_000]}\n")
    server_side = OllamaCutting(window, FileTaskAgent(n=N))
    with FakeOpenAIServer(server_side, window=10**7, model="local") as server:
        url = server.base_url
        run = cli("-p", task_text(N), "-y", "-m", "local", "--base-url", url, "--api-key", "k", *given)
    assert run.code == 0, run.stderr
    assert "without saying so" in run.stderr, run.stderr
    cut = [i for i, (sent, kept, _, _) in enumerate(server_side.sent) if kept < sent]
    assert len(cut) == 1, server_side.sent  # the first cut is found: the next request fits
    kept = server_windows.remembered_as(cli.home, url, "local")
    assert kept is not None and kept.how == "cut", json.dumps(server_side.sent)
    taken_whole = max(sent for sent, got, _, _ in server_side.sent[:cut[0]])
    assert taken_whole <= kept.window <= window  # a lower bound of the server's, no lower than it showed
    after = server_side.sent[cut[0] + 1:]
    assert len(after) > 3, server_side.sent  # it went on within the window learned
    over = [(sent, asked) for sent, _, asked, _ in after if sent + asked > kept.window]
    assert not over, (kept.window, server_side.sent)


@pytest.mark.parametrize("chars_per_token", [2.0, 8.0])
def test_a_server_that_refuses_is_never_taken_for_one_that_cuts(cli: Cli, chars_per_token: float) -> None:
    """A llama.cpp server refuses a prompt over its window, and its tokenizer may count twice or half
    what characters/4 does: the calibration learns that, and no report is taken for a cut."""
    make_project(cli.cwd, N, filler_chars=9_000)
    with FakeOpenAIServer(FileTaskAgent(n=N), window=9_000, model="local", overflow="llama.cpp",
                          chars_per_token=chars_per_token) as server:
        url = server.base_url
        run = cli("-p", task_text(N), "-y", "-m", "local", "--base-url", url, "--api-key", "k")
    assert run.code == 0, run.stderr
    assert "without saying so" not in run.stderr, run.stderr
    kept = server_windows.remembered_as(cli.home, url, "local")
    assert kept is None or kept.how == "refused", kept
