"""A turn leaves no thread behind that keeps the program alive, however it ends.

pydantic-ai runs the agent's sync callbacks (the instructions, each request) in worker threads.
AnyIO's, the default, are stopped only when the event loop's main task finishes while the loop still
runs. An observer that ends the program from inside a tool call (rich answers a closed pipe with
SystemExit, Ctrl+C is a KeyboardInterrupt) ends the loop first: the program printed its error and
then never exited, the interpreter waiting on an idle "AnyIO worker thread".
"""

from __future__ import annotations

import asyncio
import os
import select
import subprocess
import sys
import threading
from pathlib import Path
from typing import Any

import pytest

from compact_agent.agent.run.options import SessionOptions
from compact_agent.agent.run.runner import AgentSession
from compact_agent.agent.run.turn_threads import turn_threads
from tests.fakes.openai_server import ChatRequest, FakeOpenAIServer, Reply, tool_results

# A library user's program: its `on_event` ends the program, at the first event (a tool result
# large enough to be spilled to a file, during the tool call).
PROGRAM = """
import asyncio, sys
from pathlib import Path
from compact_agent.agent.run.options import SessionOptions
from compact_agent.agent.run.runner import AgentSession

url, cwd, kind = sys.argv[1:4]

def on_event(event):
    raise SystemExit(7) if kind == "SystemExit" else KeyboardInterrupt()

async def main():
    s = AgentSession(SessionOptions(cwd=Path(cwd), model="fake-model", base_url=url, api_key="k",
                                    permission_mode="yes", home=Path(cwd) / "home"), on_event=on_event)
    try:
        await s.run_turn("show big.txt")
    finally:
        s.close()

try:
    asyncio.run(main())
except BaseException as e:
    print("raised", type(e).__name__, flush=True)
"""


def _responder(req: ChatRequest) -> Reply:
    if not tool_results(req):
        return Reply.tools([("bash", {"command": "cat big.txt"})])
    return Reply.text("done")


@pytest.mark.parametrize("kind", ["SystemExit", "KeyboardInterrupt"])
def test_an_observer_that_ends_the_program_lets_it_exit(tmp_path: Path, kind: str) -> None:
    (tmp_path / "big.txt").write_text("\n".join(f"line {i} " + "x" * 80 for i in range(4000)))
    src = Path(__file__).resolve().parents[2] / "src"
    env = {**os.environ, "PYTHONPATH": str(src), "PYDANTIC_AI_NO_BANNER": "1"}
    with FakeOpenAIServer(_responder) as server:
        proc = subprocess.Popen([sys.executable, "-c", PROGRAM, server.base_url, str(tmp_path), kind],
                                stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, env=env, cwd=tmp_path)
        try:
            assert proc.stdout is not None
            # Starting (imports) may be slow on a busy machine; only the exit after the turn is timed short.
            assert select.select([proc.stdout], [], [], 60)[0], "the turn did not end"
            assert proc.stdout.readline().decode().split() == ["raised", kind]  # it reached the caller
            try:
                code = proc.wait(timeout=5)
            except subprocess.TimeoutExpired:
                raise AssertionError("the program did not exit after its turn ended: a thread kept it alive") from None
        finally:
            proc.kill()
            proc.wait()
    assert code == 0


def _session(cwd: Path, url: str) -> AgentSession:
    return AgentSession(SessionOptions(cwd=cwd, model="fake-model", base_url=url, api_key="k", permission_mode="yes",
                                       home=cwd / "home"))


def _turn_threads_end(before: set[threading.Thread]) -> None:
    """No AnyIO worker was started (it outlives the turn, until the loop's main task ends), and the
    turn's own threads end once it is over."""
    new = [t for t in threading.enumerate() if t not in before]
    assert not [t for t in new if t.name.startswith("AnyIO worker")]
    for t in new:
        if t.name.startswith("compact-agent turn"):
            t.join(timeout=5)
            assert not t.is_alive()


async def test_a_turn_ends_its_threads_when_it_ends_or_fails(tmp_path: Path) -> None:
    (tmp_path / "big.txt").write_text("\n".join(f"line {i} " + "x" * 80 for i in range(4000)))

    def on_tool(call: dict[str, Any]) -> None:
        raise RuntimeError("observer broke")

    with FakeOpenAIServer(_responder) as server:
        before = set(threading.enumerate())
        s = _session(tmp_path, server.base_url)
        try:
            assert (await s.run_turn("show big.txt")).output == "done"
            _turn_threads_end(before)
            s.clear()  # a new conversation: the tool is called again
            with pytest.raises(RuntimeError, match="observer broke"):  # the observer's error reaches the caller
                await s.run_turn("show big.txt", on_tool=on_tool)
            _turn_threads_end(before)
        finally:
            s.close()


async def test_a_cancelled_turn_ends_its_threads(tmp_path: Path) -> None:
    reached, release = threading.Event(), threading.Event()

    def responder(req: ChatRequest) -> Reply:
        reached.set()
        release.wait(10)  # until the turn is cancelled
        return Reply.text("late")

    with FakeOpenAIServer(responder) as server:
        before = set(threading.enumerate())
        s = _session(tmp_path, server.base_url)
        try:
            task = asyncio.ensure_future(s.run_turn("hello"))
            assert await asyncio.to_thread(reached.wait, 10)
            task.cancel()
            with pytest.raises(asyncio.CancelledError):
                await task
            _turn_threads_end(before | {t for t in threading.enumerate() if t.name.startswith("asyncio")})
        finally:
            release.set()
            s.close()


def test_work_given_after_the_turn_runs_in_the_caller() -> None:
    """A task started in the turn (the session notes, in the background) inherits its executor and
    may outlive it: what it hands over then runs where it asks, not refused by a closed pool."""
    with turn_threads() as pool:
        assert pool.submit(threading.current_thread).result() is not threading.current_thread()
    assert pool.submit(threading.current_thread).result() is threading.current_thread()
    with pytest.raises(KeyboardInterrupt):
        pool.submit(_interrupt).result()


def _interrupt() -> None:
    raise KeyboardInterrupt
