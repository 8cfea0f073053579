"""The context's size is the provider's report of the last request only while the messages that
request sent are what the context holds. A layer may decide after an answer (old tool results
cleared once the prompt cache has expired, a collapse committed): /status and /context then showed
the report of a request larger than the context, where /compact began from the context's own size."""

from __future__ import annotations

from datetime import timedelta
from pathlib import Path

from compact_agent.agent.accounting.context_report import picture
from compact_agent.agent.run.options import SessionOptions
from compact_agent.agent.run.runner import AgentSession
from compact_agent.config import Settings
from tests.e2e.scripted import FileTaskAgent, make_project, task_text
from tests.fakes.openai_server import FakeOpenAIServer

N = Settings().microcompact_keep_recent + 3  # files read: old results past the newest the layer keeps


async def test_a_report_of_results_cleared_since_is_not_the_context_size(tmp_path: Path) -> None:
    cwd = tmp_path / "project"
    make_project(cwd, N, filler_chars=3_000)
    with FakeOpenAIServer(FileTaskAgent(N)) as server:
        def session(resumed: bool) -> AgentSession:
            return AgentSession(SessionOptions(
                cwd=cwd, model="fake-model", base_url=server.base_url, api_key="k", context_window=64_000,
                permission_mode="yes", home=tmp_path / "home", settings=Settings(collapse_enabled=False),
                continue_last=resumed))

        s = session(False)
        try:
            await s.run_turn(task_text(N))
            fresh = picture(s)
        finally:
            s.close()
        last = s.messages[-1]
        assert fresh.anchored and fresh.used == last.usage.input_tokens + last.usage.output_tokens
        assert not fresh.kept_out.get("microcompact")

        s = session(True)  # resumed: the instructions and tools are estimated afresh, the report still stands
        try:
            assert picture(s).anchored and picture(s).used == fresh.used
            later = s.cm.clock() + timedelta(hours=2)  # the prompt cache has expired: old results are cleared
            s.cm.clock = lambda: later
            now = picture(s)
            assert now.kept_out.get("microcompact", 0) > 0  # the case: the layers decided since the report
            assert not now.anchored and now.used < fresh.used - now.kept_out["microcompact"] // 2
        finally:
            s.close()
