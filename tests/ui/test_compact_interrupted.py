"""Ctrl-C while /compact waited for its summary ended the whole REPL (`compact-agent: interrupted`,
exit 130), and Esc did nothing. /compact runs as a turn does in the REPL, under its spinner with
`esc to interrupt`: Esc or Ctrl-C stops it, the session stays as it was, and the REPL goes on."""

from __future__ import annotations

import threading
from pathlib import Path
from typing import Any

from tests.e2e.scripted import is_summary_request
from tests.fakes.openai_server import FakeOpenAIServer, Reply

from .repl_driver import drive


async def stopped_in_its_summary(tmp_path: Path, command: str, then: str) -> Any:
    """After three long exchanges, `command` (which compacts) is stopped by Ctrl-C while the summary
    is being written (it never comes while the test runs: only a stop ends it); then `then` goes."""
    pipe: list[Any] = []
    released = threading.Event()

    def answer(req: Any) -> Reply:
        if is_summary_request(req):
            pipe[0].send_text("\x03")
            released.wait(30)
            return Reply.text("<summary>1. Primary Request and Intent: talk.</summary>")
        return Reply.text("word " * 3000)

    with FakeOpenAIServer(answer) as server:
        try:
            return await drive(tmp_path, answer, ["long one\r", "long two\r", "long three\r", f"{command}\r",
                                                  f"{then}\r", "after\r"], pipe=pipe, server=server)
        finally:
            released.set()  # before the server stops: it waits for its handlers


async def test_ctrl_c_stops_a_compaction_not_the_repl(tmp_path: Path) -> None:
    run = await stopped_in_its_summary(tmp_path, "/compact", "/history")
    assert "interrupted\nnot compacted; nothing was changed\n" in run.out, run.out[-2000:]
    assert "compacted (manual" not in run.out and "no compactions yet" in run.out
    assert run.prompts[-1] == "after"  # the REPL went on


async def test_ctrl_c_stops_the_compaction_a_model_switch_starts_not_the_repl(tmp_path: Path) -> None:
    run = await stopped_in_its_summary(tmp_path, "/model --window 8000", "/status")
    assert "interrupted\nnot switched; nothing was changed\n" in run.out, run.out[-2000:]
    assert "window 32,768" in run.out.split("not switched")[1]  # /status: the window it had
    assert run.prompts[-1] == "after"
