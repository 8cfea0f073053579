"""The model answers a `-p` run and the disk fills as the answer is saved: the answer is the run's
output all the same, one line says it was received but not saved, and the next `-c` says so.

Before, the run printed only the save's error (the answer the model gave was never shown), and the
next `-c` warned that the message 'got no answer before the last run ended'. A `-p` run appends three
times (the typed prompt, the request, the answer): `append.partial:3:enospc` fails the answer's save
once, `3+` every write from it on (a disk that stays full: not even a mark of it can be written).
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from compact_agent import crashpoints
from compact_agent.agent.run.unfinished import NOT_SAVED, RAN_NOT_SAVED
from tests.fakes.openai_server import ChatRequest, FakeOpenAIServer, Reply, message_text, user_messages

from .common import cli, session
from .harness import Zygote

RECEIVED = ("; the model's answer was received but not saved: it is this run's output; --continue goes on "
            "from your message, without it")


@pytest.fixture(autouse=True)
def disarm() -> Iterator[None]:
    yield
    crashpoints.configure("")


def answer(req: ChatRequest) -> Reply:
    return Reply.text(f"ANSWER to {req.last_user_text()}")


async def remembered(home: Path, cwd: Path, server: FakeOpenAIServer) -> None:
    """The session the `-p` runs continue: one turn, "remember PELICAN", answered and saved."""
    s = session(home, cwd, server, api_key="k")
    await s.run_turn("remember PELICAN")
    await s.aclose()


def crash_at(point: str) -> dict[str, str]:
    return {"COMPACT_AGENT_CRASH_AT": point}


def args(server: FakeOpenAIServer, prompt: str, *extra: str) -> list[str]:
    return ["-p", prompt, "--model", "fake-model", "--base-url", server.base_url, "--context-window", "9000",
            "--yes", "--api-key", "k", "--continue", *extra]


@pytest.mark.parametrize("fmt", ["text", "json"])
async def test_an_answer_that_could_not_be_saved_is_shown_and_said(tmp_path: Path, zygote: Zygote, fmt: str) -> None:
    home, cwd = tmp_path / "home", tmp_path / "project"
    with FakeOpenAIServer(answer) as server:
        await remembered(home, cwd, server)
        full = cli(home, cwd, *args(server, "second", "--output-format", fmt), env=crash_at("append.partial:3:enospc"),
                   zygote=zygote)
        again = cli(home, cwd, *args(server, "third"), zygote=zygote)
        sent = user_messages(server.requests[-1])
        said = [message_text(m) for m in server.requests[-1].messages if m["role"] == "assistant"]
    assert full.code == 1, full.stderr
    if fmt == "text":
        assert full.stdout == "ANSWER to second\n"
    else:
        result = full.json()
        assert result["is_error"] and result["result"] == "ANSWER to second", result
        assert result["error"].endswith(RECEIVED), result
    [line] = full.stderr_lines()
    assert line.startswith("compact-agent: could not write the session file ") and line.endswith(RECEIVED), line
    assert "Traceback" not in full.stderr and "Error" not in full.stderr and "[Errno" not in full.stderr
    assert again.code == 0, again.stderr
    warning = " ".join(again.stderr.split())
    assert ("1 message you typed was answered, but the last run could not save the model's answer (it was shown "
            "then): the conversation holds your message without it") in warning, warning
    assert "had not reached the model" not in warning and "got no answer" not in warning
    assert [m["content"] for m in sent] == ["remember PELICAN", "second", "third"]
    # the model is told it answered `second` and its answer is not in the history, not that no answer came
    assert said == ["ANSWER to remember PELICAN", NOT_SAVED], said


async def test_a_disk_that_stays_full_leaves_no_mark_and_the_next_run_says_no_more_than_it_knows(
        tmp_path: Path, zygote: Zygote) -> None:
    home, cwd = tmp_path / "home", tmp_path / "project"
    with FakeOpenAIServer(answer) as server:
        await remembered(home, cwd, server)
        full = cli(home, cwd, *args(server, "second"), env=crash_at("append.partial:3+:enospc"), zygote=zygote)
        again = cli(home, cwd, *args(server, "third"), zygote=zygote)
    assert full.code == 1 and full.stdout == "ANSWER to second\n", full.stderr
    assert full.stderr_lines()[-1].endswith(RECEIVED), full.stderr
    warning = " ".join(again.stderr.split())
    assert "1 message you typed got no answer saved before the last run ended" in warning, warning


def work(req: ChatRequest) -> Reply:
    """`go` makes the model write a file and run a command; their results in, it answers."""
    if req.last_user_text() == "go" and not any(m["role"] == "tool" for m in req.messages):
        return Reply.tools([("write_file", {"path": "notes.txt", "content": "KIWI"}), ("bash", {"command": "echo RAN"})])
    return answer(req)


async def test_tool_calls_whose_results_could_not_be_saved_are_named_in_the_line(tmp_path: Path,
                                                                                 zygote: Zygote) -> None:
    """The disk fills as the save before the tools' results go out is made (`-p` appends the typed
    prompt, the request, then the calls and their results): the line said only that the session
    file could not be written, and `-c` went on from the message as if nothing had run. The calls
    ran (the file is written): the line names them and says that they and their results are not saved.
    The file marks them, so the next `-c` says they ran, to the user and the model: it said only that
    the message 'got no answer saved', and the model read that the turn 'ended before an answer'."""
    home, cwd = tmp_path / "home", tmp_path / "project"
    with FakeOpenAIServer(work) as server:
        await remembered(home, cwd, server)
        full = cli(home, cwd, *args(server, "go"), env=crash_at("append.partial:3:enospc"), zygote=zygote)
        requests = len(server.requests)
        again = cli(home, cwd, *args(server, "third"), zygote=zygote)
        said = [message_text(m) for m in server.requests[-1].messages if m["role"] == "assistant"]
    assert full.code == 1 and (cwd / "notes.txt").read_text() == "KIWI", full.stderr
    assert requests == 2, requests  # the tools' results were not sent: the store does not hold them
    [line] = full.stderr_lines()
    assert line.startswith("compact-agent: could not write the session file "), line
    assert line.endswith("; what was saved before is intact; the model made 2 tool calls (write_file, bash), and they "
                         "and their results are not saved: --continue goes on from your message, and tells the model "
                         "that they ran, not what they did"), line
    assert "Traceback" not in full.stderr and "Error" not in full.stderr and "[Errno" not in full.stderr
    assert again.code == 0, again.stderr
    warning = " ".join(again.stderr.split())
    assert ("1 message you typed got no answer saved: the model made 2 tool calls for it (write_file, bash), which "
            "ran, and the last run could not save them or their results, so files may have changed since: the "
            "conversation holds your message without them, and the model is told so") in warning, warning
    assert said[-1] == RAN_NOT_SAVED.format(tools="write_file, bash"), said


async def test_an_answer_to_tool_results_that_could_not_be_saved_is_said_as_answered(tmp_path: Path,
                                                                                     zygote: Zygote) -> None:
    """The model's calls ran and were saved, and the disk filled as its answer to their results was
    saved (the fourth append): the next `-c` warned that 'the last run stopped after the model's tool
    calls, before it answered their results (interrupted, killed or out of turns)', and the model
    read '[compact-agent: this turn ended before an answer …]' after those results. It had answered."""
    home, cwd = tmp_path / "home", tmp_path / "project"
    with FakeOpenAIServer(work) as server:
        await remembered(home, cwd, server)
        full = cli(home, cwd, *args(server, "go"), env=crash_at("append.partial:4:enospc"), zygote=zygote)
        again = cli(home, cwd, *args(server, "third"), zygote=zygote)
        said = [message_text(m) for m in server.requests[-1].messages if m["role"] == "assistant"]
    assert full.code == 1 and full.stdout == "ANSWER to go\n", full.stderr
    # what --continue goes on from: the results the file holds, not the message (it said 'from your message')
    assert full.stderr_lines()[-1].endswith("the model's answer was received but not saved: it is this run's output; "
                                            "--continue goes on from the results of the model's tool calls, without "
                                            "it"), full.stderr
    assert again.code == 0, again.stderr
    warning = " ".join(again.stderr.split())
    assert ("the model answered the results of its tool calls, but the last run could not save the answer (it was "
            "shown then): the conversation ends at those results") in warning, warning
    assert "interrupted" not in warning and "before it answered" not in warning, warning
    assert said[-1] == NOT_SAVED, said
