"""A reply whose connection closed after it had begun is said as a reply cut off mid-way: it was
`cannot reach the model endpoint at URL (the server there closed the connection without
answering)`, the words of a server that never answered, which still says them."""

from __future__ import annotations

from pathlib import Path

import httpx2 as httpx
import pytest
from pydantic_ai.exceptions import ModelConnectionError

from compact_agent.error_text import describe_error, unusable_model
from tests.fakes.openai_server import FakeOpenAIServer, Fault, Reply

from .common import session

CUT = "the provider's reply was cut off mid-way: the model endpoint at http://127.0.0.1:"


@pytest.mark.parametrize("streamed", [True, False], ids=["streamed", "whole"])
async def test_a_reply_cut_mid_way_is_said_so(tmp_path: Path, streamed: bool) -> None:
    with FakeOpenAIServer(lambda r: Reply.text("a long answer " * 40), faults=lambda r, a: Fault.reset_mid_stream()) as server:
        s = session(tmp_path / "h", tmp_path / "p", server)
        with pytest.raises(Exception) as info:
            await s.run_turn("hello", on_text=(lambda t: None) if streamed else None)
        await s.aclose()
    line = describe_error(info.value)
    tries = "" if streamed else ", on every try"  # the SDK retries a reply that was not streamed
    assert line.startswith(CUT) and line.endswith(
        f"/v1/chat/completions closed the connection before the reply ended{tries}; the session is saved with "
        "your message: send it again (↑ Enter) to retry"), line
    assert "cannot reach" not in line and "without answering" not in line


async def test_a_server_that_never_answered_is_still_said_so(tmp_path: Path) -> None:
    with FakeOpenAIServer(lambda r: Reply.text("ok"), faults=lambda r, a: Fault.drop()) as server:
        s = session(tmp_path / "h", tmp_path / "p", server)
        with pytest.raises(Exception) as info:
            await s.run_turn("hello", on_text=lambda t: None)
        await s.aclose()
    assert "(the server there closed the connection without answering)" in describe_error(info.value)


def test_a_summary_request_cut_mid_way_is_said_so() -> None:
    """`analyze --model`'s summaries: the same words, and what to do, in its line."""
    from compact_agent.deadline import ReplyCut

    error = ModelConnectionError("m", "Connection error.")
    error.__cause__ = ReplyCut("cut", request=httpx.Request("POST", "http://h/v1/chat/completions"), streamed=False)
    said = unusable_model(error, url="http://h/v1", key_from="")
    assert said == ("the provider's reply was cut off mid-way: the model endpoint at http://h/v1 closed the "
                    "connection before the reply ended, on every try; check that the server there is up and not "
                    "overloaded, then run again"), said
