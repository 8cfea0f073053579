"""-p's json result object of a run SIGTERM ended while the reply streamed said `"cut_off": true` with
`"num_turns": 0` and `"requests": 0`, though the request had been sent and its reply was coming: a
request's usage is counted when its reply ends, which this one never did. The request out counts."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Callable, Iterator
from typing import Any

from compact_agent import stop_signals
from compact_agent.agent.run import turn
from compact_agent.ui.print_mode import run_print
from tests.fakes.openai_server import FakeOpenAIServer

from .test_signal_mid_reply import options, writer


def test_the_request_whose_reply_a_signal_cut_is_counted(tmp_path, monkeypatch):
    monkeypatch.setattr(stop_signals, "_state", stop_signals._State())
    saves: list[Callable[[str], object]] = []
    results: list[dict[str, Any]] = []

    @contextlib.contextmanager
    def saving(save: Callable[[str], object]) -> Iterator[None]:
        saves.append(save)
        yield

    real = turn.stream_handler

    def handler(on_text: Callable[[str], None] | None, on_tool: Any = None, partial: list[str] | None = None) -> Any:
        def text(piece: str) -> None:
            if not results and piece.strip():  # as stop_signals._end: the save, then the result's fields
                saves[-1]("SIGTERM")
                assert stop_signals._state.fields is not None
                results.append(stop_signals._state.fields())

        return real(text, on_tool, partial)

    monkeypatch.setattr(stop_signals, "saving", saving)
    monkeypatch.setattr(turn, "stream_handler", handler)
    with FakeOpenAIServer(writer) as server:
        asyncio.run(run_print(options(tmp_path, server), "tell me", "json"))
    assert len(server.requests) == 1 and stop_signals._state.cut_off
    [result] = results
    assert result["num_turns"] == 1 and result["usage"]["requests"] == 1, result
