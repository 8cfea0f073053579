"""A conversation's window is the window of the model its requests go to, and a limit a model's
server taught (its refusal, or prompts it cut) is that model's alone.

One `ContextManager()` shared by a researcher on a 100K model and a coder on a model whose server
holds 4,000 tokens, the coder going on with the researcher's history (a hand-off): the coder's
server refused once, the manager learned 4,000, and from then the researcher, back in that
conversation, compacted as if its own model had 4,000 too (its largest request 2,970 tokens). With
`run(model=...)` the same: a turn on a 4K model held the next turns on the agent's 100K model to 4K.
A window given (`window=`) is the user's for every model; only what a server taught follows it.
"""

from __future__ import annotations

from collections.abc import Callable

import pytest
from pydantic_ai import Agent
from pydantic_ai.messages import ModelMessage, ModelResponse, TextPart
from pydantic_ai.models.function import AgentInfo, FunctionModel
from pydantic_ai.models.openai import OpenAIChatModel
from pydantic_ai.providers.openai import OpenAIProvider
from pydantic_ai.usage import RequestUsage

from compact_agent.context import ContextManager, Event, InMemoryStore, Prices, WindowTooSmallError
from tests.fakes.openai_server import ChatRequest, FakeOpenAIServer, Reply

from .pages_agent import is_summary_request, page_text

RESEARCHER, CODER = 100_000, 4_000


def reader(pages: dict[str, int]) -> Callable[[ChatRequest], Reply]:
    """A server's answers: a page read while `pages["left"]` says more are to read, then "done"."""
    def responder(req: ChatRequest) -> Reply:
        if is_summary_request(req):
            return Reply.text("The pages read so far.")
        if pages["left"] > 0:
            pages["left"] -= 1
            pages["n"] += 1
            return Reply.tools([("read", {"page": pages["n"]})])
        return Reply.text("done")
    return responder


def reading_agent(model: OpenAIChatModel, cm: ContextManager) -> Agent[None, str]:
    agent: Agent[None, str] = Agent(model, capabilities=[cm])

    @agent.tool_plain
    def read(page: int) -> str:
        """Read a page."""
        return page_text(page)

    return agent


@pytest.mark.parametrize(("given", "researchers"), [(None, RESEARCHER), (50_000, 50_000)])
async def test_a_window_one_models_server_taught_is_not_held_against_another(given: int | None,
                                                                             researchers: int) -> None:
    events: list[Event] = []
    cm = ContextManager(window=given, prices=Prices(known=False), event_handler=events.append)
    big, small = {"left": 0, "n": 0}, {"left": 0, "n": 100}
    with (FakeOpenAIServer(reader(big), window=RESEARCHER, model="researcher") as far,
          FakeOpenAIServer(reader(small), window=CODER, model="coder") as near):
        researcher = reading_agent(OpenAIChatModel("researcher", provider=OpenAIProvider(
            base_url=far.base_url, api_key="k"), profile={"context_window": RESEARCHER}), cm)
        # Its profile says more than its server holds: only the server's refusal tells.
        coder = reading_agent(OpenAIChatModel("coder", provider=OpenAIProvider(
            base_url=near.base_url, api_key="k"), profile={"context_window": 16_000}), cm)

        big["left"] = 6
        history = (await researcher.run("Read six pages.")).all_messages()
        small["left"] = 1
        history = (await coder.run("Read one more.", message_history=history)).all_messages()
        assert len(near.rejected) == 1  # the coder's first request, over its server's 4,000
        learned = [e for e in events if e.layer == "window" and e.action == "learned"]
        assert [e.tokens_after for e in learned] == [CODER]
        conversation = history[-1].conversation_id
        assert conversation is not None and (state := cm.conversation(conversation)) is not None
        assert state.window == CODER

        # Back on the researcher's model: its own window (or the one given), not the coder's server's.
        compactions, sent = len(state.compactions), len(far.requests)
        big["left"] = 6
        history = (await researcher.run("Read six more.", message_history=history)).all_messages()
        assert state.window == researchers and state.window_learned is None
        assert len(state.compactions) == compactions
        assert max(r.prompt_tokens for r in far.requests[sent:]) > CODER * 5 // 4

        # Back on the coder's: within what its server taught from its first request, which is not refused.
        small["left"] = 1
        history = (await coder.run("Read one more.", message_history=history)).all_messages()
        assert len(near.rejected) == 1 and state.window == CODER
        assert state.window_learned is not None and state.window_learned.window == CODER

        # A conversation of its own on the coder's model knows its server's limit too.
        small["left"] = 0
        await coder.run("A long question: " + page_text(0, words=2_000), conversation_id="another")
        assert len(near.rejected) == 1
        other = cm.conversation("another")
        assert other is not None and other.window == CODER
    assert [e.tokens_after for e in events if e.layer == "window" and e.action == "learned"] == [CODER]


def answer(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
    return ModelResponse(parts=[TextPart("ok " * 200)])


async def test_a_turn_on_another_model_leaves_the_next_turns_their_own_models_window() -> None:
    """`run(model=small)` for one turn of an agent on a large model, then the agent's own model again."""
    cm = ContextManager()
    large = FunctionModel(answer, model_name="large", profile={"context_window": 100_000})
    small = FunctionModel(answer, model_name="small", profile={"context_window": 4_000})
    agent = Agent(large, capabilities=[cm])
    history = (await agent.run("a quick look", model=small)).all_messages()
    assert cm.window == 4_000
    history = (await agent.run("now the deep research", message_history=history)).all_messages()
    assert cm.window == 100_000
    await agent.run("and a quick look again", message_history=history, model=small)
    assert cm.window == 4_000


def _one_size(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
    """Reports of one size for requests that grow: a server cutting prompts to its window."""
    return ModelResponse(parts=[TextPart("ok " * 300)], usage=RequestUsage(input_tokens=3_000, output_tokens=300))


def _whole(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
    """Reports of what was sent, a tenth smaller for this server's tokenizer: a server that cuts nothing."""
    sent = sum(len(str(getattr(p, "content", ""))) for m in messages for p in m.parts) // 4
    return ModelResponse(parts=[TextPart("ok " * 300)], usage=RequestUsage(input_tokens=sent * 9 // 10 + 100,
                                                                             output_tokens=300))


class _Server(FunctionModel):
    """The function as a server's model (its `system` names a provider): its reports may be of a cut prompt."""

    @property
    def system(self) -> str:
        return "ollama"


async def test_a_window_learned_from_a_server_cutting_prompts_is_that_models_alone() -> None:
    events: list[Event] = []
    cm = ContextManager(store=InMemoryStore(), event_handler=events.append)
    cutting = _Server(_one_size, model_name="cutting", profile={"context_window": 32_000})
    whole = _Server(_whole, model_name="whole", profile={"context_window": 32_000})
    agent = Agent(cutting, capabilities=[cm])
    history: list[ModelMessage] = []
    for i in range(4):
        try:
            history = (await agent.run(f"step {i}: " + "grow " * 1_500, message_history=history)).all_messages()
        except WindowTooSmallError:  # the cut request asked again within the 3,000 learned
            break
    cut = [e for e in events if e.layer == "window" and e.action == "learned"]
    assert cut and cut[0].trigger == "cut" and cm.window is not None and cm.window < 32_000
    taught = cm.window
    for i in range(3):
        history = (await agent.run(f"more {i}: " + "grow " * 1_500, message_history=history,
                                   model=whole)).all_messages()
        assert cm.window == 32_000
    assert len([e for e in events if e.layer == "window" and e.action == "learned"]) == len(cut)
    sizes: list[int] = []  # back on the model that cuts: within its limit from the first request
    cm.event_handler = lambda e: sizes.append(cm.window or 0) if e.layer == "compact" else None
    await agent.run("and again: " + "grow " * 500, message_history=history)
    assert cm.window == taught and sizes and set(sizes) == {taught}


def _counting(share: float) -> Callable[[list[ModelMessage], AgentInfo], ModelResponse]:
    """A server that cuts nothing, its tokenizer counting `share` of what characters/4 make of a request."""
    def answer(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        sent = sum(len(str(getattr(p, "content", ""))) for m in messages for p in m.parts) // 4
        return ModelResponse(parts=[TextPart("ok " * 300)],
                             usage=RequestUsage(input_tokens=int(sent * share) + 100, output_tokens=300))
    return answer


async def test_a_report_of_another_models_server_is_not_compared_with_the_last_models() -> None:
    """The first report after a hand-off, smaller than the previous model's for a request that grew, is
    another tokenizer's count, not a prompt cut: it taught a 64K model a window of 8,278."""
    events: list[Event] = []
    cm = ContextManager(store=InMemoryStore(), event_handler=events.append)
    first = _Server(_counting(1.0), model_name="first", profile={"context_window": 64_000})
    second = _Server(_counting(0.7), model_name="second", profile={"context_window": 64_000})
    agent = Agent(first, capabilities=[cm])
    history: list[ModelMessage] = []
    for i in range(4):
        history = (await agent.run(f"step {i}: " + "grow " * 1_500, message_history=history)).all_messages()
    for i in range(3):
        history = (await agent.run(f"more {i}: " + "grow " * 1_500, message_history=history,
                                   model=second)).all_messages()
    assert cm.window == 64_000
    assert [e for e in events if e.layer == "window" or (e.layer == "calibration" and "cut" in str(e.detail))] == []
