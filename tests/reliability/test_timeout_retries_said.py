"""A request that timed out says how often it was tried: with `max_retries = 0` the line said
'did not answer in time, after retries' of a request sent once."""

from __future__ import annotations

from pathlib import Path

import pytest

from compact_agent.config import Settings
from compact_agent.error_text import describe_error
from tests.fakes.openai_server import FakeOpenAIServer, Fault, Reply

from .common import session


@pytest.mark.parametrize(("retries", "said"), [(0, ", tried once with max_retries = 0 (raise"),
                                               (1, ", after 1 retry (raise")])
async def test_a_timeout_says_how_often_the_request_was_tried(tmp_path: Path, retries: int, said: str) -> None:
    with FakeOpenAIServer(lambda r: Reply.text("x"), faults=lambda r, a: Fault.slow(3.0)) as server:
        s = session(tmp_path / "h", tmp_path / "p", server,
                    settings=Settings(request_timeout_s=0.2, max_retries=retries))
        with pytest.raises(Exception) as info:
            await s.run_turn("hello")
        await s.aclose()
        server.stopping.set()
    assert len(server.requests) == retries + 1
    line = describe_error(info.value)
    assert "did not answer in time" + said in line and "after retries" not in line, line


async def test_a_streamed_reply_cut_off_by_the_timeout_blames_no_setting(tmp_path: Path) -> None:
    """A streamed reply whose headers came, then only keep-alive comments until the request timeout,
    is tried once whatever `max_retries` says (the SDK reads a stream after its retries): the line
    said 'tried once with max_retries = 0' with the default of 2, a setting the user never set."""
    with FakeOpenAIServer(lambda r: Reply.text("x"), faults=lambda r, a: Fault.trickle(0.05, 30.0)) as server:
        s = session(tmp_path / "h", tmp_path / "p", server, settings=Settings(request_timeout_s=0.3))
        with pytest.raises(Exception) as info:
            await s.run_turn("hello", on_text=lambda text: None)  # streamed, as the REPL and -p ask
        await s.aclose()
        server.stopping.set()
    assert len(server.requests) == 1 and server.requests[0].body.get("stream") is True
    line = describe_error(info.value)
    assert "did not answer in time, tried once, since a reply that had begun streaming is not retried (raise" in line, line
    assert "max_retries" not in line, line


async def test_an_error_event_in_a_begun_stream_blames_no_setting(tmp_path: Path) -> None:
    """A stream whose first event is an error (`{"error": ...}` in place of a chunk) is not sent again
    either: 'model request failed, tried once with max_retries = 0' was said of it too."""
    error_event = Fault.reshaped(lambda chunk: {"error": {"message": "the server is overloaded"}})
    with FakeOpenAIServer(lambda r: Reply.text("x"), faults=lambda r, a: error_event) as server:
        s = session(tmp_path / "h", tmp_path / "p", server, settings=Settings())
        with pytest.raises(Exception) as info:
            await s.run_turn("hello", on_text=lambda text: None)
        await s.aclose()
    assert len(server.requests) == 1
    line = describe_error(info.value)
    assert line.startswith("model request failed, tried once, since a reply that had begun streaming is not "
                           "retried: the server is overloaded;"), line
