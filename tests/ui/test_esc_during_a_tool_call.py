"""Esc (or Ctrl-C) in the REPL while the model's tool calls run keeps the model's answer, with a
result for every call: the one that had finished as it came, the others saying the user stopped
them before they finished. The turn went back to what was saved before its request and lost the
answer: the next message went on as if the model had never called a tool, and `-c` said the turn
"was stopped by you before an answer". (Print mode's Ctrl-C: tests/e2e/test_print_interrupted_command.py.)"""

from __future__ import annotations

import asyncio
import os
import signal
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from compact_agent.agent.run.ended_calls import EndedCalls
from tests.fakes.openai_server import FakeOpenAIServer, Reply, message_text
from tests.processes import ended

from .repl_driver import drive
from .test_repl import result_of

#: A command with a child that ignores SIGTERM and SIGHUP, its pid written once it runs.
COMMAND = "trap '' TERM HUP; sleep 123 & echo $! > child.pid; wait"
STOPPED = "[stopped by the user before this call finished: its command was killed with the " \
    "processes it started]"
NOTE = "the last turn was stopped by you while the model's tool calls ran: bash did not finish (its command was " \
    "killed with the processes it started), as their saved results say; your next message goes " \
    "on from there"

KEPT = "⎿ the model's tool calls are kept with their results: bash did not finish (its command was " \
    "killed with the processes it started); your next message goes on from there"


def answer(req: Any) -> Reply:
    if req.last_user_text() == "run the command":
        return Reply.tools([("read_file", {"path": "notes.txt"}), ("bash", {"command": COMMAND})])
    return Reply.text(f"ANSWER to {req.last_user_text()}")


@pytest.fixture
def finished(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The tools whose calls have finished, as the turn records them (the key is pressed after read_file's)."""
    done: list[str] = []
    record = EndedCalls.wrap_tool_execute

    async def wrap(self: EndedCalls, ctx: Any, *, call: Any, **kwargs: Any) -> Any:
        result = await record(self, ctx, call=call, **kwargs)
        done.append(call.tool_name)
        return result

    monkeypatch.setattr(EndedCalls, "wrap_tool_execute", wrap)
    return done


def press_when_running(cwd: Path, pipe: list[Any], key: str, finished: list[str]) -> threading.Thread:
    """Presses `key` once read_file has finished and the command has written its child's pid (the
    bash call is running then)."""
    def watch() -> None:
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            path = cwd / "child.pid"
            if "read_file" in finished and path.exists() and path.read_text().endswith("\n"):
                pipe[0].send_text(key)
                return
            time.sleep(0.01)

    thread = threading.Thread(target=watch, daemon=True)
    thread.start()
    return thread


def child_of(cwd: Path) -> int:
    return int((cwd / "child.pid").read_text())


def project(tmp_path: Path) -> Path:
    """The working directory: one file for read_file to read."""
    cwd = tmp_path / "project"
    cwd.mkdir()
    (cwd / "notes.txt").write_text("remember the heron\n")
    return cwd


def pressing(cwd: Path, pipe: list[Any], key: str, finished: list[str]) -> Callable[[Any], Reply]:
    """`answer`, pressing `key` once the command runs in the first turn (`press_when_running`)."""
    started: list[threading.Thread] = []

    def first(req: Any) -> Reply:
        if req.last_user_text() == "run the command" and not started:
            started.append(press_when_running(cwd, pipe, key, finished))
        return answer(req)
    return first


async def stopped_then_go_on(tmp_path: Path, cwd: Path, responder: Callable[[Any], Reply],
                             server: FakeOpenAIServer, pipe: list[Any]) -> Any:
    """The REPL sent "run the command" (stopped by a key while its command runs) and "go on"; fails
    if the command's child outlived the key (killed then, never left behind by the test itself)."""
    try:
        return await drive(tmp_path, responder, ["run the command\r", "go on\r"], server=server, pipe=pipe,
                           permission_mode="yes")
    finally:
        child = child_of(cwd) if (cwd / "child.pid").exists() else None
        if child is not None and not ended(child):
            os.kill(child, signal.SIGKILL)
            pytest.fail("the command's child outlived Esc")


def sent_after(server: FakeOpenAIServer, text: str) -> list[dict[str, Any]]:
    """The messages of the request that took the user's message `text` to the model."""
    [req] = [r for r in server.requests if r.last_user_text() == text]
    return req.messages


def assert_kept(messages: list[dict[str, Any]]) -> None:
    """The model's answer is in `messages` with a result for each of its calls, in order."""
    [asked] = [i for i, m in enumerate(messages) if m["role"] == "user" and message_text(m) == "run the command"]
    answered = messages[asked + 1]
    calls = [(c["id"], c["function"]["name"]) for c in answered["tool_calls"]]
    assert [name for _, name in calls] == ["read_file", "bash"]
    results = messages[asked + 2: asked + 4]
    assert [(m["role"], m["tool_call_id"]) for m in results] == [("tool", i) for i, _ in calls]
    assert "remember the heron" in results[0]["content"]  # it had finished: its own result
    assert results[1]["content"] == STOPPED


@pytest.mark.parametrize("key", ["\x1b", "\x03"], ids=["esc", "ctrl-c"])
async def test_stopping_a_tool_call_keeps_the_answer_and_the_next_message_goes_on(tmp_path: Path, key: str,
                                                                                  finished: list[str]) -> None:
    cwd, pipe = project(tmp_path), list[Any]()
    first = pressing(cwd, pipe, key, finished)
    with FakeOpenAIServer(first) as server:
        live = await stopped_then_go_on(tmp_path, cwd, first, server, pipe)
        assert "interrupted" in live.out and "ANSWER to go on" in live.out, live.out
        assert KEPT in " ".join(live.out.split()), live.out  # under `interrupted`, what the next message goes on from
        assert result_of(live.out, "read_file(notes.txt)", "1 line"), live.out  # it had finished: its line shows it
        assert live.out.count("1 line") == 1, live.out  # once, not again with the kept calls
        assert_kept(sent_after(server, "go on"))
        assert not server.rejected

        resumed = await drive(tmp_path, answer, ["and now\r"], server=server, continue_last=True)
    assert "warning" not in resumed.out, resumed.out
    assert "ANSWER to and now" in resumed.out
    assert_kept(sent_after(server, "and now"))


async def test_resume_after_stopping_a_tool_call_says_what_was_stopped(tmp_path: Path, finished: list[str]) -> None:
    cwd, pipe = project(tmp_path), list[Any]()
    first = pressing(cwd, pipe, "\x1b", finished)
    with FakeOpenAIServer(first) as server:
        live = await drive(tmp_path, first, ["run the command\r"], server=server, pipe=pipe, permission_mode="yes")
        assert "interrupted" in live.out, live.out
        assert ended(child_of(cwd))
        resumed = await drive(tmp_path, answer, ["go on\r"], server=server, continue_last=True)
    said = " ".join(resumed.out.split())  # the note as one line, however the console wrapped it
    assert NOTE in said and "before an answer" not in said, resumed.out
    assert "warning" not in resumed.out
    assert_kept(sent_after(server, "go on"))
    assert not server.rejected


async def test_a_call_that_finished_as_the_key_came_shows_its_result_line(tmp_path: Path,
                                                                        monkeypatch: pytest.MonkeyPatch) -> None:
    """read_file's result is kept the moment it finished, but the key came before the line that shows
    it: no line said how the call went, though the next message goes on from its result."""
    cwd, pipe = project(tmp_path), list[Any]()
    record = EndedCalls.wrap_tool_execute

    async def wrap(self: EndedCalls, ctx: Any, *, call: Any, **kwargs: Any) -> Any:
        result = await record(self, ctx, call=call, **kwargs)
        if call.tool_name == "read_file":  # kept; Esc comes before the line, once the command runs
            deadline = time.monotonic() + 60
            pid = cwd / "child.pid"
            while not (pid.exists() and pid.read_text().endswith("\n")) and time.monotonic() < deadline:
                await asyncio.sleep(0.01)
            pipe[0].send_text("\x1b")
            await asyncio.Event().wait()  # until Esc cancels the turn
        return result

    monkeypatch.setattr(EndedCalls, "wrap_tool_execute", wrap)
    with FakeOpenAIServer(answer) as server:
        live = await stopped_then_go_on(tmp_path, cwd, answer, server, pipe)
    assert "interrupted" in live.out, live.out
    assert "  ⎿ read_file(notes.txt): 1 line" in live.out.splitlines(), live.out
    assert live.out.count("read_file(notes.txt): 1 line") == 1, live.out
    assert_kept(sent_after(server, "go on"))


async def test_the_kept_calls_line_goes_on_under_its_own_text_when_narrow(tmp_path: Path,
                                                                          finished: list[str]) -> None:
    """At 80 columns the line under `interrupted` takes three; the rest went on at column 0, where it
    read as a line of its own."""
    import io

    from rich.console import Console

    cwd, pipe = project(tmp_path), list[Any]()
    first = pressing(cwd, pipe, "\x1b", finished)
    console = Console(record=True, width=80, file=io.StringIO(), force_terminal=False)
    with FakeOpenAIServer(first) as server:
        try:
            live = await drive(tmp_path, first, ["run the command\r"], server=server, pipe=pipe, console=console,
                               permission_mode="yes")
        finally:
            if (cwd / "child.pid").exists() and not ended(child_of(cwd)):
                os.kill(child_of(cwd), signal.SIGKILL)
    lines = live.out.splitlines()
    [at] = [i for i, line in enumerate(lines) if line.startswith("  ⎿ the model's tool calls are kept")]
    under = []
    for line in lines[at + 1:]:
        if not line.startswith("    "):
            break
        under.append(line)
    assert under and all(len(line) <= 80 for line in lines[at:at + 1 + len(under)]), live.out
    assert KEPT in " ".join(" ".join(lines[at:at + 1 + len(under)]).split()), live.out
