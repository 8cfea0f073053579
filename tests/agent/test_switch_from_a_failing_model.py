"""`/model NAME --window N` away from a model whose provider now fails.

A smaller window means a compaction first, and its summary went to the model in use: a provider
answering 402 (a balance run out) or 404 (a model the server no longer serves) failed the switch,
which said only the failed turn's line, whose advice was '/model switches the model'; every later
`/model … --window` and `/compact` failed the same way. Now a record of the steps written without a
model stands in for the summary that failed, the switch goes ahead and says why; where even that
cannot be made, one line says `not switched: …`, nothing changed. Against the fake OpenAI server."""

from __future__ import annotations

from pathlib import Path

import pytest

from compact_agent.agent.run.model_switch import NotSwitched, switch_model
from compact_agent.agent.run.options import SessionOptions
from compact_agent.agent.run.runner import AgentSession
from compact_agent.config import Settings
from compact_agent.settings_file import Loaded
from tests.fakes.openai_server import ChatRequest, FakeOpenAIServer, Reply

ANSWER = "the ordinary words of a long answer, said at length. " * 283  # 3,750 tokens
BROKE = {"error": {"message": "Insufficient Balance", "type": "unknown_error", "param": None,
                   "code": "invalid_request_error"}}


class Provider:
    """fake-model answers at length, until its balance runs out (402); `small` always answers."""

    def __init__(self) -> None:
        self.broke = False
        self.refused: list[str] = []

    def __call__(self, req: ChatRequest) -> Reply:
        if self.broke and req.body.get("model") == "fake-model":
            self.refused.append(req.last_user_text())
            return Reply.error(402, BROKE)
        return Reply.text(ANSWER if req.body.get("model") == "fake-model" else "ok")


async def session_at_a_broke_provider(tmp_path: Path, server: FakeOpenAIServer, provider: Provider,
                                      **settings: object) -> AgentSession:
    s = AgentSession(SessionOptions(cwd=tmp_path, model="fake-model", base_url=server.base_url, api_key="k",
                                    context_window=64_000, home=tmp_path / "home",
                                    settings=Settings(memory_enabled=False, max_retries=0, **settings)))  # type: ignore[arg-type]
    for n in range(4):
        await s.run_turn(f"[U{n}] tell me more")
    provider.broke = True
    return s


async def test_a_switch_from_a_model_that_fails_compacts_with_a_record_and_switches(tmp_path: Path) -> None:
    provider = Provider()
    with FakeOpenAIServer(provider, serves=["small"]) as server:
        s = await session_at_a_broke_provider(tmp_path, server, provider)
        try:
            before = s.context_tokens()
            assert before > 12_000
            sw = await switch_model(s, "small", 16_000, remember=False)
            assert provider.refused, "the summary was asked of the model in use first"
            assert sw.new == "small" and s.info.name == "small" and s.cm.limits.window == 16_000
            assert sw.compaction is not None and sw.compaction.strategy == "record"
            assert sw.summary_failed == ("the summary request to fake-model failed: the provider answered HTTP 402: "
                                         "Insufficient Balance")
            assert s.context_tokens() < s.cm.limits.threshold
            await s.run_turn("[U9] and now?")  # the model switched to answers
            assert server.requests[-1].body["model"] == "small"
        finally:
            s.close()


async def test_a_switch_that_cannot_compact_says_not_switched_and_changes_nothing(tmp_path: Path) -> None:
    provider = Provider()
    with FakeOpenAIServer(provider, serves=["small"]) as server:
        s = await session_at_a_broke_provider(tmp_path, server, provider, compaction_records=False)
        try:
            count = len(s.messages)
            with pytest.raises(NotSwitched) as refused:
                await switch_model(s, "small", 16_000, remember=False)
            line = str(refused.value)
            assert line.startswith("not switched: the context (") and "\n" not in line
            assert ("its summary request to fake-model failed: the provider answered HTTP 402: Insufficient Balance; "
                    "nothing was changed; a --window whose threshold is over the context switches without compacting"
                    ) in line
            assert s.info.name == "fake-model" and s.cm.limits.window == 64_000 and len(s.messages) == count
        finally:
            s.close()


async def test_the_summary_failed_404_names_how_the_model_left_was_chosen(tmp_path: Path) -> None:
    # The model left now answers 404; the reason the switch gives named `-m fake-model` (in the REPL
    # `/model fake-model`) of a model the project's config file had chosen.
    gone = {"error": {"message": "The model `fake-model` does not exist", "type": "invalid_request_error",
                      "param": None, "code": "model_not_found"}}
    state = {"gone": False}

    def provider(req: ChatRequest) -> Reply:
        if state["gone"] and req.body.get("model") == "fake-model":
            return Reply.error(404, gone)
        return Reply.text(ANSWER if req.body.get("model") == "fake-model" else "ok")

    project = tmp_path / ".compact-agent.toml"
    config = Loaded(Settings(model="fake-model"), {"model": "project file"}, tmp_path / "u.toml", project)
    with FakeOpenAIServer(provider, serves=["small"]) as server:
        s = AgentSession(SessionOptions(cwd=tmp_path, model="fake-model", base_url=server.base_url, api_key="k",
                                        context_window=64_000, home=tmp_path / "home", config=config,
                                        settings=Settings(memory_enabled=False, max_retries=0)))
        try:
            for n in range(4):
                await s.run_turn(f"[U{n}] tell me more")
            state["gone"] = True
            sw = await switch_model(s, "small", 16_000, remember=False)
            assert sw.summary_failed is not None and "answered HTTP 404" in sw.summary_failed, sw.summary_failed
            assert f'check the model name (model = "fake-model" in {project})' in sw.summary_failed, sw.summary_failed
            assert "-m fake-model" not in sw.summary_failed
        finally:
            s.close()
