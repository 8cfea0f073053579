"""The `cache_ttl_minutes` setting is the prompt cache's lifetime the pipeline times its decisions by
(microcompact clears results where the cache has expired anyway; the priced schedule weighs a
rebuild against it). It was accepted, validated and listed by `config`, and read by nothing: the
model's own lifetime from the registry was used whatever it said."""

from __future__ import annotations

from pathlib import Path

from compact_agent.agent.run.model_switch import switch_model
from compact_agent.agent.run.options import SessionOptions
from compact_agent.agent.run.runner import AgentSession
from compact_agent.config import Settings
from tests.fakes.openai_server import FakeOpenAIServer, Reply


def session(tmp_path: Path, server: FakeOpenAIServer, model: str, settings: Settings) -> AgentSession:
    cwd = tmp_path / "project"
    cwd.mkdir(exist_ok=True)
    opts = SessionOptions(cwd=cwd, model=model, base_url=server.base_url, api_key="k", context_window=64_000,
                          permission_mode="yes", home=tmp_path / "home", settings=settings)
    return AgentSession(opts)


async def test_the_cache_lifetime_set_is_the_one_the_pipeline_uses(tmp_path: Path) -> None:
    with FakeOpenAIServer(lambda req: Reply.text("ok"), model="deepseek-chat") as server:
        s = session(tmp_path, server, "deepseek-chat", Settings(cache_ttl_minutes=5))
        try:
            assert (s.cm.cache_ttl_s, s.cm.prices.ttl_s) == (300.0, 300.0)
            await s.run_turn("hello")
            await switch_model(s, "claude-sonnet-4-5")  # a model switched to keeps the lifetime set
            assert (s.cm.cache_ttl_s, s.cm.prices.ttl_s) == (300.0, 300.0)
        finally:
            await s.aclose()


async def test_without_the_setting_each_model_has_its_own(tmp_path: Path) -> None:
    with FakeOpenAIServer(lambda req: Reply.text("ok")) as server:
        s = session(tmp_path, server, "deepseek-chat", Settings())
        try:
            assert s.cm.cache_ttl_s == 3600.0  # DeepSeek's cache lives about an hour
            await switch_model(s, "claude-sonnet-4-5")
            assert s.cm.cache_ttl_s == 300.0  # Anthropic's five minutes
        finally:
            await s.aclose()


def test_config_lists_the_lifetime_in_use(cli) -> None:
    listed = cli("--model", "claude-sonnet-4-5", "config").stdout
    [line] = [x for x in listed.splitlines() if x.startswith("cache_ttl_minutes")]
    assert "5.0" in line and "the model's own (claude-sonnet-4-5)" in line, line
    listed = cli("--model", "claude-sonnet-4-5", "config", env={"COMPACT_AGENT_CACHE_TTL_MINUTES": "2"}).stdout
    [line] = [x for x in listed.splitlines() if x.startswith("cache_ttl_minutes")]
    assert "2.0" in line and "env COMPACT_AGENT_CACHE_TTL_MINUTES" in line, line
