"""The thrash guard's state goes with the session. A script of `-c` runs, each a long typed message
and a read, in a 4K window: within one REPL session the guard saw compactions come too soon, or free
too little, and kept less at the next one; each `-c` run began with it at rest, so from the seventh
run every run compacted, each freeing 15% (2,708 → 2,289 tokens), one summary request per two
working requests. The guard's level and the compaction it goes by are saved beside the history."""

from __future__ import annotations

import json

from tests.fakes.openai_server import ChatRequest, FakeOpenAIServer, Reply

from .scripted import FileTaskAgent, is_summary_request

PAD = " ".join(["please keep the style consistent with the rest of the module and do not rename anything"] * 12)
RUNS = 11


def responder(agent: FileTaskAgent):
    def answer(req: ChatRequest) -> Reply:
        if is_summary_request(req):
            return agent.summarize(req)
        if req.messages[-1].get("role") == "user":
            return Reply.tools([("read_file", {"path": "notes.txt"})], content="Checking the file.")
        return Reply.text("Checked: the file is fine.")
    return answer


def test_a_script_of_continued_runs_does_not_compact_on_every_run(cli) -> None:
    (cli.cwd / "notes.txt").write_text("\n".join(f"line {i}: nothing to change here" for i in range(60)) + "\n")
    with FakeOpenAIServer(responder(FileTaskAgent(n=1)), window=4096, overflow="llama.cpp") as server:
        compacted = []
        for k in range(1, RUNS + 1):
            run = cli(*(["-c"] if k > 1 else []), "-p", f"TURN-{k}: check the file. RULE-{k}{k}: answer in one "
                      f"line. {PAD}", "--yes", "--verbose", "--context-window", "4096", "-m", "fake-model",
                      "--base-url", server.base_url, "--api-key", "k")
            assert run.code == 0, run.stderr
            compacted.append(sum(line.startswith("compacted") for line in run.stderr.splitlines()))
        summaries = sum(is_summary_request(r) for r in server.requests)
    assert max(compacted[6:]) == 1, compacted  # not twice a run: one that freed 10% put off nothing
    assert 2 * summaries <= RUNS, (summaries, compacted)  # was one per run (and two per run from the sixth)
    [session] = (cli.home / "projects").glob("*/*/events.jsonl")
    events = [json.loads(line) for line in session.read_text().splitlines()]
    compactions = [e for e in events if e.get("layer") == "compact" and e.get("action") in ("full", "record")]
    escalated = [e for e in events if e.get("layer") == "thrash"]
    # Each run's one compaction came after the previous run's, which kept too much: escalated as in one
    # session, where a run beginning with the guard at rest kept as much again.
    assert len(compactions) >= 5 and len(escalated) >= len(compactions) - 1, (len(compactions), len(escalated))
    [layers] = (cli.home / "projects").glob("*/*/layers.json")
    assert json.loads(layers.read_text())["learned"]["thrash"][0] > 0
