"""A model that writes less than `max_output` (8,192 by default) no longer fails every summary.

Many models cap a reply below 8,192 tokens (local models, older hosted ones), and a provider refuses
a request whose `max_tokens` is above the cap (DeepSeek: "Invalid max_tokens value, the valid
range of max_tokens is [1, 4096]"). The summary request asks for what the window leaves, at most
`max_output`: without `max_output=` every summary request was refused, every compaction failed, and
after three the circuit breaker stopped them. The refusal names the cap: the request is sent again
within it, the manager keeps it as the model's `max_output` (an `output` / `learned` event), and no
later summary or notes request asks for more.
"""

from __future__ import annotations

import pytest
from pydantic_ai import Agent
from pydantic_ai.exceptions import ModelHTTPError
from pydantic_ai.models.openai import OpenAIChatModel
from pydantic_ai.providers.openai import OpenAIProvider
from pydantic_ai.usage import UsageLimits

from compact_agent.context import CompactionEvent, CompactionSettings, ContextManager, Event
from compact_agent.context.compaction.notes import NOTES_MARK, SECTIONS
from compact_agent.context.plumbing.output_limit import output_limit
from tests.fakes.openai_server import ChatRequest, FakeOpenAIServer, Reply

CAP = 4_096


def reader() -> FakeOpenAIServer:
    pages = {"n": 0}

    def answer(req: ChatRequest) -> Reply:
        if NOTES_MARK in req.last_user_text():
            return Reply.text("<notes>" + "\n\n".join(f"# {s}\nPages read." for s in SECTIONS) + "</notes>")
        if "<summary>" in req.last_user_text():
            return Reply.text("<summary>Pages read so far.</summary>")
        pages["n"] += 1
        return Reply.tools([("read", {"page": pages["n"]})]) if pages["n"] <= 24 else Reply.text("done")
    return FakeOpenAIServer(answer, model="small-model", writes_at_most={"small-model": CAP})


async def test_a_summary_refused_for_its_max_tokens_is_sent_again_within_the_cap_the_refusal_names() -> None:
    events: list[Event] = []
    with reader() as server:
        model = OpenAIChatModel("small-model", provider=OpenAIProvider(base_url=server.base_url, api_key="k"))
        cm = ContextManager(window=32_000, settings=CompactionSettings(compaction_records=False),
                            event_handler=events.append)
        agent = Agent(model, capabilities=[cm])

        @agent.tool_plain
        def read(page: int) -> str:
            return f"page {page}: " + " ".join(f"w{page}x{i}" for i in range(1_200))

        result = await agent.run("Read every page.", usage_limits=UsageLimits(request_limit=60))
    assert result.output == "done"
    compactions = [e for e in events if isinstance(e, CompactionEvent)]
    assert len(compactions) >= 2 and not [e for e in compactions if e.action == "failed"]
    assert len(server.rejected) == 1  # the first summary request only: later ones ask within the cap
    summaries = [r for r in server.requests if "<summary>" in r.last_user_text()]
    asked = [int(r.body.get("max_completion_tokens") or r.body.get("max_tokens") or 0) for r in summaries]
    assert asked[0] > CAP and all(a <= CAP for a in asked[1:])
    learned = [e for e in events if e.layer == "output" and e.action == "learned"]
    assert [(e.detail["max_output"], e.detail["given"]) for e in learned] == [(CAP, 8_192)]
    assert cm.max_output == CAP


@pytest.mark.parametrize(("said", "most"), [
    ("Invalid max_tokens value, the valid range of max_tokens is [1, 8192]", 8_192),  # DeepSeek
    ("max_tokens is too large: 16384. This model supports at most 4096 completion tokens, whereas you provided "
     "16384.", 4_096),  # OpenAI
    ("max_tokens: 8192 > 4096, which is the maximum allowed number of output tokens for claude-3-haiku-20240307",
     4_096),  # Anthropic
])
def test_the_cap_is_read_from_each_providers_words(said: str, most: int) -> None:
    e = ModelHTTPError(400, "m", {"error": {"message": said, "type": "invalid_request_error"}})
    assert output_limit(e) == most


def test_a_prompt_too_long_is_no_output_cap() -> None:
    said = ("'max_tokens' or 'max_completion_tokens' is too large: 8192. This model's maximum context length is "
            "4096 tokens and your request has 100 input tokens (8192 > 4096 - 100).")  # vLLM: the window's
    assert output_limit(ModelHTTPError(400, "m", {"error": {"message": said}})) is None
    assert output_limit(ModelHTTPError(500, "m", {"error": {"message": "the valid range of max_tokens is [1, 5]"}})) is None


async def test_a_notes_request_refused_for_its_max_tokens_is_sent_again_within_the_cap() -> None:
    events: list[Event] = []
    with reader() as server:
        model = OpenAIChatModel("small-model", provider=OpenAIProvider(base_url=server.base_url, api_key="k"))
        settings = CompactionSettings(memory_enabled=True, memory_update_tokens=1, memory_update_tool_calls=1,
                                      memory_start_fraction=0.0)
        cm = ContextManager(window=32_000, settings=settings, event_handler=events.append)
        agent = Agent(model, capabilities=[cm])

        @agent.tool_plain
        def read(page: int) -> str:
            return f"page {page}: " + " ".join(f"w{page}x{i}" for i in range(200))

        await agent.run("Read every page.", usage_limits=UsageLimits(request_limit=60))
        await cm.drain()
    notes = [e for e in events if e.layer == "memory"]
    assert [e.action for e in notes if e.action in ("update", "failed")][:1] == ["update"], notes
    assert [(e.detail["max_output"], e.detail["given"]) for e in events if e.layer == "output"] == [(CAP, 8_192)]
    assert len(server.rejected) == 1 and cm.max_output == CAP


async def test_a_cap_learned_before_a_restart_is_asked_within_from_the_first_summary() -> None:
    """The cap is saved with the layers' state: a manager that loads it (a session resumed after a
    restart) sends no summary request its model refuses. It used to learn the cap again, once a
    process, from one more refused request."""

    async def run(cm: ContextManager) -> FakeOpenAIServer:
        with reader() as server:
            model = OpenAIChatModel("small-model", provider=OpenAIProvider(base_url=server.base_url, api_key="k"))
            agent = Agent(model, capabilities=[cm])

            @agent.tool_plain
            def read(page: int) -> str:
                return f"page {page}: " + " ".join(f"w{page}x{i}" for i in range(1_200))

            await agent.run("Read every page.", usage_limits=UsageLimits(request_limit=60))
        return server

    settings = CompactionSettings(compaction_records=False)
    first = ContextManager(window=32_000, settings=settings)
    assert len((await run(first)).rejected) == 1 and first.max_output == CAP
    state = first.layer_state()
    assert state["learned"]["output_caps"] == {"openai:small-model": CAP}
    again = ContextManager(window=32_000, settings=settings)
    again.load_layer_state(state)
    server = await run(again)
    summaries = [r for r in server.requests if "<summary>" in r.last_user_text()]
    assert summaries and not server.rejected and again.max_output == CAP
