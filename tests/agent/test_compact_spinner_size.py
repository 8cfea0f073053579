"""The size /compact's spinner shows ('compacting N tokens…') is the size the compaction begins
from. In a resumed session, before the run's first request, the manager knows no system prompt or
tools yet: the spinner counted the messages alone ('compacting 19 tokens…') and the answer then
said '… more than the 1,038 in use now'."""

from __future__ import annotations

from pathlib import Path

import pytest

from compact_agent.agent.run.options import SessionOptions
from compact_agent.agent.run.runner import AgentSession
from compact_agent.agent.run.window_check import fixed_tokens
from compact_agent.context import NotSmaller
from tests.fakes.openai_server import FakeOpenAIServer, Reply


async def test_the_size_compact_begins_from_counts_the_system_prompt_and_tools_before_any_request(
        tmp_path: Path) -> None:
    cwd = tmp_path / "project"
    cwd.mkdir()
    with FakeOpenAIServer(lambda req: Reply.text("hello")) as server:
        def session(resumed: bool) -> AgentSession:
            return AgentSession(SessionOptions(cwd=cwd, model="fake-model", base_url=server.base_url, api_key="k",
                                               permission_mode="yes", home=tmp_path / "home",
                                               continue_last=resumed))

        s = session(False)
        try:
            await s.run_turn("hi")
        finally:
            s.close()
        s = session(True)
        try:
            assert s.messages and not s.cm.overhead  # resumed, no request of this run yet
            shown = s.context_tokens()
            assert shown > fixed_tokens(s)
            with pytest.raises(NotSmaller) as refused:  # a conversation of two short messages
                await s.compact()
            assert refused.value.before == shown
        finally:
            s.close()
