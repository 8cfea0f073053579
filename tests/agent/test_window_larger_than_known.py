"""A --context-window larger than the window this version knows its model to have (1M on
deepseek-chat, 128K) was taken without a word: the session planned for room the model does not
have, and nothing was compacted until the provider refused a request as too long. It is now said
once at start; a window within the known one, a model this version does not know, and one served by
another address (--base-url, or the SDK's base-URL variable) are not."""

from __future__ import annotations

from pathlib import Path

import pytest

from compact_agent.agent.run.options import SessionOptions
from compact_agent.agent.run.runner import AgentSession
from compact_agent.config import Settings


async def notices(tmp_path: Path, model: str = "deepseek-chat", window: int | None = 1_000_000,
                  base_url: str | None = None, settings: Settings | None = None) -> list[str]:
    (tmp_path / "p").mkdir(exist_ok=True)
    session = AgentSession(SessionOptions(cwd=tmp_path / "p", model=model, api_key="k", context_window=window,
                                          base_url=base_url, home=tmp_path / "h", settings=settings or Settings()))
    try:
        return list(session.notices)
    finally:
        await session.aclose()


@pytest.fixture(autouse=True)
def _no_base_url_variables(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in ("OPENAI_BASE_URL", "ANTHROPIC_BASE_URL"):
        monkeypatch.delenv(name, raising=False)


async def test_a_window_larger_than_the_models_is_said_at_start(tmp_path: Path) -> None:
    assert await notices(tmp_path) == [
        "--context-window gives 1,000,000 tokens, more than the 128,000 deepseek-chat has as this version knows "
        "it: a request past 128,000 is refused by the provider, and the session then compacts and learns its window"]
    said = await notices(tmp_path, window=None, settings=Settings(context_window=200_000))
    assert len(said) == 1 and said[0].startswith("context_window in ") and "gives 200,000 tokens" in said[0], said


async def test_a_window_within_the_known_one_or_for_another_server_is_not(tmp_path: Path,
                                                                          monkeypatch: pytest.MonkeyPatch) -> None:
    assert await notices(tmp_path, window=100_000) == []
    assert await notices(tmp_path, window=None) == []
    assert await notices(tmp_path, model="my-local-model") == []  # not known: its window is the one given
    assert await notices(tmp_path, base_url="http://127.0.0.1:9/v1") == []  # that server's model may hold it
    assert len(await notices(tmp_path, model="gpt-4o", window=2_000_000)) == 1  # OpenAI's own API: said
    monkeypatch.setenv("OPENAI_BASE_URL", "http://127.0.0.1:9/v1")  # its client goes to a local server: not
    assert await notices(tmp_path, model="gpt-4o", window=2_000_000) == []
