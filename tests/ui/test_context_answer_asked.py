"""What an Anthropic request asks for as `max_tokens`, beside the room the threshold keeps for the answer.

A request that sets no `max_tokens` gets pydantic-ai's: the model's most (64,000 for Claude Sonnet 4.5),
which Anthropic does not hold against the window (it ends an answer at the window, and bills only what
is written), or 4,096 for an older model that refuses a request whose prompt and `max_tokens` exceed the
window. The pipeline knew of neither: /context showed a reserve of 2.0k while 64,000 went out, and for
the older model a prompt near the threshold went out with 4,096 more than the window holds. The older
model's 4,096 is now set where the pipeline counts it, and /context says what is asked for and why."""

from __future__ import annotations

from pathlib import Path

import pytest

from compact_agent.agent.run.options import SessionOptions
from compact_agent.agent.run.runner import AgentSession
from tests.fakes.anthropic_server import AnthropicReply, FakeAnthropicServer

from .test_commands_terminal import show

WINDOW = 8_000


def session(tmp_path: Path, model: str, monkeypatch: pytest.MonkeyPatch, server: FakeAnthropicServer) -> AgentSession:
    monkeypatch.setenv("ANTHROPIC_BASE_URL", server.base_url)
    cwd = tmp_path / "project"
    cwd.mkdir(exist_ok=True)
    return AgentSession(SessionOptions(cwd=cwd, model=model, api_key="sk-ant-test", home=tmp_path / "home",
                                       context_window=WINDOW))


async def test_a_model_that_counts_max_tokens_never_gets_a_request_over_the_window(tmp_path, monkeypatch):
    with FakeAnthropicServer(lambda req: AnthropicReply("noted " * 30)) as server:
        s = session(tmp_path, "claude-sonnet-4-0", monkeypatch, server)
        try:
            for i in range(6):  # the context grows past the room a prompt has once 4,096 are asked for
                await s.run_turn(f"note {i}: " + "lorem ipsum dolor sit amet " * 120)
                asked = server.requests[-1].body["max_tokens"]
                assert asked == 4_096
                assert s.cm.last_tokens + asked <= WINDOW, (i, s.cm.last_tokens)
            assert s.cm.limits.output_reserve >= 4_096
            out = " ".join((await show(s, "/context")).split())
        finally:
            s.close()
    assert ("requests ask for answers of up to 4,096 tokens (max_tokens), held against the window with the "
            "prompt: the room kept for an answer is at least that") in out, out


async def test_context_says_what_anthropic_is_asked_for_beside_the_room_kept(tmp_path, monkeypatch):
    with FakeAnthropicServer(lambda req: AnthropicReply("fine")) as server:
        s = session(tmp_path, "claude-sonnet-4-5", monkeypatch, server)
        try:
            await s.run_turn("hello")
            out = " ".join((await show(s, "/context")).split())
            room = s.cm.limits.output_reserve
        finally:
            s.close()
    assert server.requests[-1].body["max_tokens"] == 64_000  # free unless written: left as pydantic-ai sends it
    assert room < 64_000  # …and not held against the window, which would leave a prompt nothing
    assert ("requests ask for answers of up to 64,000 tokens (max_tokens, the model's most): Anthropic ends one "
            "at the window instead of refusing the request, and bills only what is written, so the answer's "
            f"{room / 1000:.1f}k above is the room kept for one, not a cap") in out, out
