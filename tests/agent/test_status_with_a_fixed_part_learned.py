"""/status, /context and /compact anchor the size in use to the provider's count of the last request
where the view is still what it sent, by our estimate of it against the one the calibration kept
with that report. Once the calibration learns what the provider counts beyond our estimate of the
instructions and tool definitions (`Calibration.fixed`), the manager's `overhead` carries that part;
compared with the kept estimate, which does not, it said the view had changed and the figure fell
back to the calibrated estimate."""

from __future__ import annotations

from pathlib import Path

from pydantic_ai.messages import ModelResponse

from compact_agent.agent.accounting.context_report import picture
from compact_agent.agent.run.options import SessionOptions
from compact_agent.agent.run.runner import AgentSession
from tests.fakes.openai_server import FakeOpenAIServer, Reply


async def test_the_size_in_use_stays_the_providers_count_once_the_fixed_part_is_learned(tmp_path: Path) -> None:
    with FakeOpenAIServer(lambda req: Reply.text("noted")) as server:
        s = AgentSession(SessionOptions(cwd=tmp_path, model="fake-model", base_url=server.base_url, api_key="k",
                                        context_window=64_000, home=tmp_path / "home"))
        try:
            for words in (50, 1_500, 300):  # requests of different sizes: the fixed part is told apart
                await s.run_turn("the parser " * words)
            assert s.cm.calibration.fixed > 100  # the fake counts the tools' JSON as sent: more than estimated
            last = s.messages[-1]
            assert isinstance(last, ModelResponse)
            shown = picture(s)
            assert shown.anchored and shown.used == last.usage.input_tokens + last.usage.output_tokens
            assert s.context_tokens() == shown.used
        finally:
            s.close()
