"""/compact counts the context as /context and /status do: the provider's count of the last request
and its answer, where it still holds, not the estimate the reports calibrate.

The calibration ratio is learned from whole requests, whose tool definitions a provider counts
unlike the estimate, and it scales every message by it. After one long answer (3,750 tokens, as the
provider counted it) /context said 4,913 tokens in use and `-c -p /compact` said a compaction
would keep 'more than the 5,482 in use now': the answer estimated at 4,319."""

from __future__ import annotations

from pathlib import Path

import pytest
from pydantic_ai.messages import ModelResponse

from compact_agent.agent.accounting.context_report import picture
from compact_agent.agent.run.options import SessionOptions
from compact_agent.agent.run.runner import AgentSession
from compact_agent.context import NotSmaller
from tests.fakes.openai_server import FakeOpenAIServer, Reply

ANSWER = "the ordinary words of a long answer, said at length. " * 283  # 14,999 characters: 3,750 tokens


async def test_compact_begins_from_the_size_context_shows(tmp_path: Path) -> None:
    with FakeOpenAIServer(lambda req: Reply.text(ANSWER)) as server:
        s = AgentSession(SessionOptions(cwd=tmp_path, model="fake-model", base_url=server.base_url, api_key="k",
                                        context_window=8_000, home=tmp_path / "home"))
        try:
            await s.run_turn("say big things")
            last = s.messages[-1]
            assert isinstance(last, ModelResponse) and last.usage.output_tokens == 3_750
            shown = picture(s)
            assert shown.anchored and shown.used == last.usage.input_tokens + last.usage.output_tokens
            # The estimate the reports calibrate puts it higher: what /compact counted before.
            assert s.cm.measure(s.messages) > shown.used + 300
            assert s.context_tokens() == shown.used  # the spinner's 'compacting N tokens'
            with pytest.raises(NotSmaller) as refused:  # the answer is the newest message: a compaction keeps it
                await s.compact()
            assert refused.value.before == shown.used
        finally:
            s.close()
