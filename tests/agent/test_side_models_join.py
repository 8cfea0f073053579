"""A session's side models (`summary_model`, `memory_model` set to another model) are built apart from
its main model, and were not wired to what the agent keeps of servers whose chat template wants user
messages joined (servers/turns.json): a summary model there sent its first request of every session
apart and was refused, and what it learned from the refusal was not kept for the runs that follow.
Now each side model joins from its first request where its own server and model were learned to want
it, and keeps it when it learns it, as the main model does."""

from __future__ import annotations

from pathlib import Path

import pytest
from pydantic_ai.messages import ModelMessage, ModelRequest, TextPart, UserPromptPart
from pydantic_ai.models import ModelRequestParameters

from compact_agent.agent.run import server_turns
from compact_agent.agent.run.options import SessionOptions
from compact_agent.agent.run.runner import AgentSession
from compact_agent.agent.run.server_keys import endpoint
from compact_agent.agent.run.side_models import summary_model
from compact_agent.config import Settings
from tests.fakes._wire import message_text
from tests.fakes.openai_server import FakeOpenAIServer, Reply

ASKED: list[ModelMessage] = [ModelRequest(parts=[UserPromptPart("the conversation"), UserPromptPart("a digest")])]


def session(tmp_path: Path, url: str) -> AgentSession:
    settings = Settings(summary_model="summarizer", memory_model="notetaker", memory_enabled=True)
    return AgentSession(SessionOptions(cwd=tmp_path, model="local", base_url=url, api_key="k", settings=settings,
                                       home=tmp_path / "h"))


def answered(reply: object) -> list[str]:
    return [p.content for p in getattr(reply, "parts", []) if isinstance(p, TextPart)]


async def test_a_side_model_joins_from_its_first_request_where_its_server_was_learned_to_want_it(tmp_path: Path) -> None:
    with FakeOpenAIServer(lambda req: Reply.text(message_text(req.messages[-1])), model="local",
                          serves=("summarizer", "notetaker"), alternating_roles="llama.cpp") as server:
        for name in ("summarizer", "notetaker"):
            server_turns.keep(tmp_path / "h", endpoint(server.base_url, "openai"), name)
        s = session(tmp_path, server.base_url)
        try:
            assert s.memory is not None and s.memory.notes_model is not None
            for side in (summary_model(s), s.memory.notes_model):
                reply = await side.request(ASKED, None, ModelRequestParameters())
                assert answered(reply) == ["the conversation\n\na digest"]
        finally:
            s.close()
    assert server.rejected == [] and [r.body["model"] for r in server.requests] == ["summarizer", "notetaker"]


async def test_what_a_side_model_learns_is_kept_for_its_own_model_only(tmp_path: Path) -> None:
    with FakeOpenAIServer(lambda req: Reply.text(message_text(req.messages[-1])), model="local",
                          serves=("summarizer", "notetaker"), alternating_roles="llama.cpp") as server:
        s = session(tmp_path, server.base_url)
        try:
            reply = await summary_model(s).request(ASKED, None, ModelRequestParameters())
        finally:
            s.close()
        key = endpoint(server.base_url, "openai")
    assert answered(reply) == ["the conversation\n\na digest"] and len(server.rejected) == 1
    home = tmp_path / "h"
    assert server_turns.joins(home, key, "summarizer")  # the next run's summary model joins from the start
    assert not server_turns.joins(home, key, "local") and not server_turns.joins(home, key, "notetaker")


async def test_a_summary_model_at_another_server_than_the_sessions_is_kept_for_that_server(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A session with Anthropic's model and no --base-url, its summaries written by a local model
    at the address OPENAI_BASE_URL gives: what is kept for that server and model applies, not the
    session's server's."""
    with FakeOpenAIServer(lambda req: Reply.text(message_text(req.messages[-1])), model="local",
                          alternating_roles="llama.cpp") as server:
        monkeypatch.setenv("OPENAI_BASE_URL", server.base_url)
        server_turns.keep(tmp_path / "h", server.base_url, "local")
        s = AgentSession(SessionOptions(cwd=tmp_path, model="claude-haiku-4-5", api_key="k", home=tmp_path / "h",
                                        settings=Settings(summary_model="local")))
        try:
            reply = await summary_model(s).request(ASKED, None, ModelRequestParameters())
        finally:
            s.close()
    assert answered(reply) == ["the conversation\n\na digest"] and server.rejected == []
