"""After `/model` to another model, the size of the context is not the old model's count.

/status, /context and the toolbar anchor the size in use to the provider's count of the last request
where it still holds (in_use.py). Right after `/model claude-sonnet-4-5` from an OpenAI-compatible
model, /status said the old provider's count was 'provider-reported': a count by another tokenizer,
called this one's. Now a switch to another model (or server) anchors nothing to an answer the old
one counted: the estimate, said as one, until the new model answers. `/model --window N` on the same
model keeps its count. Against the fake OpenAI server."""

from __future__ import annotations

from pathlib import Path

from compact_agent.agent.accounting.context_report import picture
from compact_agent.agent.run.model_switch import switch_model
from compact_agent.agent.run.options import SessionOptions
from compact_agent.agent.run.runner import AgentSession
from tests.fakes.openai_server import FakeOpenAIServer, Reply


async def test_the_old_models_count_is_not_called_the_new_ones(tmp_path: Path) -> None:
    with FakeOpenAIServer(lambda req: Reply.text("an answer " * 300), serves=["other-model"]) as server:
        s = AgentSession(SessionOptions(cwd=tmp_path, model="fake-model", base_url=server.base_url, api_key="k",
                                        context_window=32_000, home=tmp_path / "home"))
        try:
            await s.run_turn("hello")
            assert picture(s).anchored
            await switch_model(s, "fake-model", 40_000, remember=False)  # the same model: its count holds
            assert picture(s).anchored
            await switch_model(s, "other-model", remember=False)
            assert not picture(s).anchored  # the old model's count, not this one's
            await s.run_turn("and you?")
            assert picture(s).anchored  # the new model's own
        finally:
            s.close()


async def test_a_session_resumed_with_another_model_does_not_call_the_old_count_its_own(tmp_path: Path) -> None:
    # `-c -m other-model`, or `-c` after a /model switch no answer followed: the last answer is the
    # old model's, and its count was called the new one's ('provider-reported') until it answered.
    with FakeOpenAIServer(lambda req: Reply.text("an answer " * 300), serves=["other-model"]) as server:
        def opened(model: str, session_id: str | None = None) -> AgentSession:
            return AgentSession(SessionOptions(cwd=tmp_path, model=model, base_url=server.base_url, api_key="k",
                                               context_window=32_000, home=tmp_path / "home", session_id=session_id))
        s = opened("fake-model")
        await s.run_turn("hello")
        s.close()
        s = opened("fake-model", s.session_id)  # the same model at the same server: its count holds
        try:
            assert picture(s).anchored
        finally:
            s.close()
        s = opened("other-model", s.session_id)
        try:
            assert not picture(s).anchored  # the old model's count, not this one's
            await s.run_turn("and you?")
            assert picture(s).anchored  # the new model's own
        finally:
            s.close()
        s = opened("fake-model", s.session_id)  # back: the last answer is other-model's
        try:
            assert not picture(s).anchored
        finally:
            s.close()
