"""/context, /status and the toolbar count the last answer's reasoning only where the next request
carries it (in_use.py, `carried_output`).

After an answer with 30,000 characters of reasoning in an 8K window, /context said "8.8k / 8.0k
tokens (110%), provider-reported": the provider's count of the request and the answer's output
tokens, its reasoning included, though the next request leaves that reasoning out to fit (fit.py)
and the server counted 1,294. Where the view carries the reasoning and nothing is known yet of what
the provider counts of it, it is still counted: the safe side.
"""

from __future__ import annotations

import io
from pathlib import Path

from pydantic_ai.messages import ModelResponse

from compact_agent.agent.run.options import SessionOptions
from compact_agent.agent.run.runner import AgentSession
from compact_agent.ui import render
from compact_agent.ui.commands import dispatch
from tests.fakes.openai_server import FakeOpenAIServer, Reply

LONG = "consider the file then check " * 1_035  # 30,015 characters: ~7,500 tokens
SHORT = "consider the file then check " * 60  # 1,740 characters: ~435 tokens


def session(tmp_path: Path, url: str, window: int) -> AgentSession:
    return AgentSession(SessionOptions(cwd=tmp_path, model="fake-model", base_url=url, api_key="k",
                                       context_window=window, home=tmp_path / "home"))


async def test_reasoning_the_next_request_leaves_out_is_not_counted(tmp_path: Path) -> None:
    with FakeOpenAIServer(lambda req: Reply.text("Done thinking.", reasoning_content=LONG), window=8_000) as server:
        s = session(tmp_path, server.base_url, 8_000)
        try:
            await s.run_turn("think it over")
            answer = s.messages[-1]
            assert isinstance(answer, ModelResponse) and answer.usage.output_reasoning_tokens > 7_000
            shown = s.context_tokens()
            await s.run_turn("ok")
        finally:
            s.close()
    sent = server.requests[-1]  # the conversation shown, and the two words typed
    assert not any(m.get("reasoning_content") for m in sent.messages)
    assert abs(shown - sent.prompt_tokens) <= 30, (shown, sent.prompt_tokens)


async def status(s: AgentSession) -> str:
    c = render.make_console()
    c.file, c.record = io.StringIO(), True
    await dispatch(s, "/status", c)
    return " ".join(c.export_text().split())


async def test_reasoning_the_next_request_carries_is_counted_until_known_and_said(tmp_path: Path) -> None:
    """/status said '1,596 … provider-reported' where the server then counted 1,187 for the next
    request: the answer's 419 tokens of reasoning, which nothing yet showed the server counts. It is
    still counted, and now said, until the reports tell."""
    with FakeOpenAIServer(lambda req: Reply.text("Agreed.", reasoning_content=SHORT), window=16_000) as server:
        s = session(tmp_path, server.base_url, 16_000)
        try:
            await s.run_turn("think it over")
            answer = s.messages[-1]
            assert isinstance(answer, ModelResponse) and answer.usage.output_reasoning_tokens > 400
            assert s.context_tokens() == answer.usage.input_tokens + answer.usage.output_tokens
            said = await status(s)
            assert (f"provider-reported ({answer.usage.output_reasoning_tokens:,} of them the last answer's reasoning, "
                    "which the provider may not count when it is sent back)") in said, said
            for prompt in ("and then", "and on"):  # a turn's start moves the answer's reasoning among the earlier
                await s.run_turn(prompt)
            assert s.cm.calibration.thinking.earlier is False  # the server leaves it out: sizes do too
            said = await status(s)
            assert "provider-reported" in said and "last answer's reasoning" not in said, said
        finally:
            s.close()
