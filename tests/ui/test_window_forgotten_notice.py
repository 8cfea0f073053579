"""The REPL says a remembered window forgotten, after the turn's answer, in its notices' style: the
server took a prompt larger than the window kept for it (window_proof.py), which only the session's
event log recorded. Said when it happened, the line would stand inside the answer being written."""

from __future__ import annotations

from compact_agent.agent.run import server_windows
from tests.fakes.openai_server import FakeOpenAIServer, Reply

from .repl_driver import drive, pasted

ANSWER = "first paragraph of the essay\n\nlast paragraph of the essay\n\nMarkers: done"


async def test_the_window_forgotten_is_said_after_the_answer(tmp_path) -> None:
    long = "Requirement: " + "the calculator must keep decimal precision; " * 250  # ~2.8K tokens
    with FakeOpenAIServer(lambda req: Reply.text(ANSWER)) as server:
        url = server.base_url
        server_windows.remember(tmp_path / "home", url, "fake-model", 2_000, "refused")
        run = await drive(tmp_path, None, [pasted(long) + "\r"], server=server, context_window=64_000)
    out = run.out
    note = out.index(f"forgot the window of 2,000 tokens remembered for fake-model at {url}: "
                     "the server took a prompt of ")
    assert note > out.rindex("Markers: done"), out
    assert out.count("forgot the window") == 1
    assert server_windows.remembered(tmp_path / "home", url, "fake-model") is None
