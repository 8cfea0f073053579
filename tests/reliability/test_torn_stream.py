"""A stream cut mid-answer — half the events, a torn last one, no `[DONE]`, the body closed
properly — is an error: one line on stderr, a non-zero exit, the partial answer saved marked as cut."""

from __future__ import annotations

import json
from pathlib import Path

from tests.fakes.openai_server import ChatRequest, FakeOpenAIServer, Fault, Reply

from .common import cli, cli_args
from .harness import Zygote

ANSWER = " ".join(f"word{i}" for i in range(60))


def long_answer(req: ChatRequest) -> Reply:
    return Reply.text(ANSWER)


def test_a_torn_stream_is_an_error_and_the_partial_answer_is_saved_as_cut(tmp_path: Path, zygote: Zygote) -> None:
    home, cwd = tmp_path / "home", tmp_path / "project"
    cwd.mkdir()
    with FakeOpenAIServer(long_answer, faults=lambda r, a: Fault.torn()) as server:
        args = cli_args(server, "explain")
        args[args.index("json")] = "stream-json"
        run = cli(home, cwd, *args, zygote=zygote)
    assert run.code == 1, (run.code, run.stdout, run.stderr)
    lines = run.stderr_lines()
    assert len(lines) == 1 and "cut off" in lines[0], run.stderr
    results = [json.loads(ln) for ln in run.stdout.splitlines() if '"type": "result"' in ln]
    assert len(results) == 1 and results[0]["is_error"] and results[0]["subtype"] == "error"
    streamed = "".join(json.loads(ln)["text"] for ln in run.stdout.splitlines() if '"type": "text"' in ln)
    assert streamed and ANSWER.startswith(streamed) and streamed != ANSWER  # half of it reached the screen
    saved = "".join(p.read_text() for p in home.rglob("*.jsonl") if "compact-history" not in str(p))
    assert streamed in saved and "reply was cut off here; this answer is incomplete" in saved


def test_a_torn_stream_in_text_mode_prints_no_half_answer_as_a_success(tmp_path: Path, zygote: Zygote) -> None:
    home, cwd = tmp_path / "home", tmp_path / "project"
    cwd.mkdir()
    with FakeOpenAIServer(long_answer, faults=lambda r, a: Fault.torn()) as server:
        args = cli_args(server, "explain")
        args[args.index("json")] = "text"
        run = cli(home, cwd, *args, zygote=zygote)
    assert run.code == 1 and run.stdout == "" and len(run.stderr_lines()) == 1, (run.stdout, run.stderr)
