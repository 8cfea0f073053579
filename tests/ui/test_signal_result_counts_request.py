"""-p's json result object of a run SIGTERM ended while the reply streamed said `"cut_off": true` with
`"num_turns": 0` and `"requests": 0`, though the request had been sent and its reply was coming: a
request's usage is counted when its reply ends, which this one never did. The request out counts."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import Any

from compact_agent import stop_signals
from compact_agent.ui.print_mode import run_print
from tests.fakes.openai_server import FakeOpenAIServer

from .test_signal_mid_reply import on_first_text, options, writer


def test_the_request_whose_reply_a_signal_cut_is_counted(tmp_path, monkeypatch):
    monkeypatch.setattr(stop_signals, "_state", stop_signals._State())
    results: list[dict[str, Any]] = []

    def kill(piece: str, save: Callable[[str], object]) -> None:  # as stop_signals._end: the save, then the result's fields
        save("SIGTERM")
        assert stop_signals._state.fields is not None
        results.append(stop_signals._state.fields())

    on_first_text(monkeypatch, kill)
    with FakeOpenAIServer(writer) as server:
        asyncio.run(run_print(options(tmp_path, server), "tell me", "json"))
    assert len(server.requests) == 1 and stop_signals._state.cut_off
    [result] = results
    assert result["num_turns"] == 1 and result["usage"]["requests"] == 1, result
