"""A summary request the server refuses as too long is learned from after a `/model` switch too.

The summary request's refusal names the run's window only when the summary goes to the model the
run's requests go to (`cm.run_model`), which was set by the run's first request alone: after a REPL
`/model` (also `/model --window N` on the same model, which builds the model again) a `/compact`'s
summary went to the model switched to while `run_model` was still the old one, so a refusal taught
nothing: no line, no window lowered, nothing kept for the server, and the summary was asked again
in its second form, without the files read. Against the fake OpenAI server, `small` served at 16,000."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from compact_agent.agent.run.model_switch import switch_model
from compact_agent.agent.run.options import SessionOptions
from compact_agent.agent.run.runner import AgentSession
from compact_agent.config import Settings
from tests.fakes._wire import WireError, check_window
from tests.fakes.openai_server import ChatRequest, FakeOpenAIServer, Reply

ANSWER = "the ordinary words of a long answer, said at length. " * 283  # 3,750 tokens
SUMMARY = "<summary>\n1. Primary Request and Intent: talk at length.\n9. Next Step: wait.\n</summary>"


def responder(req: ChatRequest) -> Reply:
    if req.body.get("model") == "small":
        try:
            check_window(req.prompt_tokens, req.body, 16_000)
        except WireError as e:
            return Reply.error(e.status, e.body)
    if "CRITICAL: Respond with TEXT ONLY" in req.last_user_text():
        return Reply.text(SUMMARY)
    return Reply.text(ANSWER)


def sent(req: ChatRequest) -> int:
    """What the server counts against its window: the prompt and the room asked for the answer."""
    return req.prompt_tokens + int(req.body.get("max_completion_tokens") or req.body.get("max_tokens") or 0)


@pytest.mark.parametrize("switch", [("small", None), ("small", 32_000)])
async def test_a_summary_refused_as_too_long_after_a_switch_teaches_the_window(tmp_path: Path,
                                                                               switch: tuple[str, int | None]) -> None:
    model, window = switch
    with FakeOpenAIServer(responder, serves=["small"]) as server:
        s = AgentSession(SessionOptions(cwd=tmp_path, model="small" if window else "fake-model",
                                        base_url=server.base_url, api_key="k", context_window=32_000,
                                        home=tmp_path / "home", settings=Settings(memory_enabled=False)))
        try:
            # Under 16,000 while the turns go to `small` (its summary request, with the room for its
            # answer, is over it); more before a switch to it: the other model's server takes them.
            for n in range(3 if window else 5):
                await s.run_turn(f"[U{n}] tell me more")
            await switch_model(s, model, window, remember=False)
            assert s.cm.limits.window == 32_000
            await s.compact()
            asked = [r for r in server.requests if "CRITICAL: Respond with TEXT ONLY" in r.last_user_text()]
            assert sent(asked[0]) > 16_000, "the first summary request was over the server's window"
            assert s.cm.limits.window == 16_000  # learned, and the summary asked again within it
            kept = json.loads((tmp_path / "home" / "servers" / "windows.json").read_text())
            assert "16000" in json.dumps(kept)
            assert sent(asked[-1]) <= 16_000 and asked[-1].tools, "the shared form, tools and all"
        finally:
            s.close()
