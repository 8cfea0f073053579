"""The calibration is each model's, and a limit taken back with the saved state is its model's.

A conversation's window follows the model its requests go to (a hand-off, `run(model=...)`), but the
ratio of the provider's counts to our estimate did not: after turns on a model whose tokenizer counts
1.6 tokens where characters/4 make one, the first requests back on a model counting one were sized
60% too large (compacting early), and the other way round too small. Each model now keeps its own
calibration, taken back when the conversation returns to it; a model never sent to starts afresh.

A limit a server taught (its refusal) and saved with the conversation's state (`layer_state`) was
taken back for whichever model the first request after a restart went to: a conversation resumed on
a 100K model was held to its 4K coder's limit. It is saved with its model and goes to that model.
"""

from __future__ import annotations

from collections.abc import Callable

from pydantic_ai import Agent
from pydantic_ai.messages import ModelMessage, ModelResponse, TextPart
from pydantic_ai.models.function import AgentInfo, FunctionModel
from pydantic_ai.models.openai import OpenAIChatModel
from pydantic_ai.providers.openai import OpenAIProvider
from pydantic_ai.usage import RequestUsage

from compact_agent.context import ContextManager, Event, InMemoryStore
from compact_agent.context.plumbing.overflow import model_key
from tests.fakes.openai_server import FakeOpenAIServer

from .test_window_follows_the_model import CODER, RESEARCHER, reader, reading_agent


class _Server(FunctionModel):
    """The function as a server's model (its `system` names a provider)."""

    @property
    def system(self) -> str:
        return "ollama"


def counting(share: float, ratios: list[float], cm: ContextManager
             ) -> Callable[[list[ModelMessage], AgentInfo], ModelResponse]:
    """A server whose tokenizer counts `share` of what characters/4 make of a request; notes the
    calibration's ratio each request was sized with."""
    def answer(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        ratios.append(cm.calibration.ratio)
        sent = sum(len(str(getattr(p, "content", ""))) for m in messages for p in m.parts) // 4
        return ModelResponse(parts=[TextPart("ok " * 100)],
                             usage=RequestUsage(input_tokens=int(sent * share) + 100, output_tokens=100))
    return answer


async def test_each_model_keeps_its_own_ratio() -> None:
    cm = ContextManager(window=64_000, store=InMemoryStore())
    on_plain: list[float] = []
    on_dense: list[float] = []
    plain = _Server(counting(1.0, on_plain, cm), model_name="plain", profile={"context_window": 64_000})
    dense = _Server(counting(1.6, on_dense, cm), model_name="dense", profile={"context_window": 64_000})
    agent = Agent(plain, capabilities=[cm])
    history: list[ModelMessage] = []
    for i in range(4):
        history = (await agent.run(f"step {i}: " + "grow " * 1_000, message_history=history)).all_messages()
    learned_plain = cm.calibration.ratio
    assert abs(learned_plain - 1.0) < 0.1
    for i in range(4):
        history = (await agent.run(f"more {i}: " + "grow " * 1_000, message_history=history,
                                   model=dense)).all_messages()
    assert on_dense[0] == 1.0  # a model never sent to starts afresh, not from the other one's
    learned_dense = cm.calibration.ratio
    assert learned_dense > 1.4
    sized = len(on_plain)
    await agent.run("and back: " + "grow " * 1_000, message_history=history)
    assert on_plain[sized] == learned_plain  # back on its own ratio from the first request
    assert cm.calibration.ratio < 1.1
    back = len(on_dense)
    await agent.run("and dense again", message_history=history, model=dense)
    assert abs(on_dense[back] - learned_dense) < 0.01


async def test_a_saved_limit_goes_to_the_model_it_was_learned_for() -> None:
    given = 50_000
    events: list[Event] = []
    cm = ContextManager(window=given, event_handler=events.append)
    big, small = {"left": 0, "n": 0}, {"left": 0, "n": 100}
    with (FakeOpenAIServer(reader(big), window=RESEARCHER, model="researcher") as far,
          FakeOpenAIServer(reader(small), window=CODER, model="coder") as near):
        researcher_model = OpenAIChatModel("researcher", provider=OpenAIProvider(base_url=far.base_url, api_key="k"))
        coder_model = OpenAIChatModel("coder", provider=OpenAIProvider(base_url=near.base_url, api_key="k"))
        researcher, coder = reading_agent(researcher_model, cm), reading_agent(coder_model, cm)
        big["left"] = 6
        history = (await researcher.run("Read six pages.")).all_messages()
        small["left"] = 1
        history = (await coder.run("Read one more.", message_history=history)).all_messages()
        assert len(near.rejected) == 1 and cm.window == CODER  # the coder's server taught its limit
        saved = cm.layer_state()
        assert saved["learned"]["window_model"] == model_key(coder_model)

        # A restart: the conversation resumes on the researcher's model first.
        again = ContextManager(window=given)
        again.load_layer_state(saved)
        researcher, coder = reading_agent(researcher_model, again), reading_agent(coder_model, again)
        sent = len(far.requests)
        big["left"] = 6
        history = (await researcher.run("Read six more.", message_history=history)).all_messages()
        assert again.window == given and again.window_learned is None and not again.compactions
        assert max(r.prompt_tokens for r in far.requests[sent:]) > CODER * 5 // 4
        # Then on the coder's model: held to its server's limit from its first request, not refused again.
        small["left"] = 1
        await coder.run("Read one more.", message_history=history)
        assert len(near.rejected) == 1 and again.window == CODER


async def test_a_saved_limit_of_the_model_the_conversation_resumes_on_holds_from_its_first_request() -> None:
    coder_model = FunctionModel(lambda m, i: ModelResponse(parts=[TextPart("ok")]), model_name="coder")
    cm = ContextManager(window=50_000)
    cm.load_layer_state({"learned": {"window": [4_000, 50_000], "window_model": model_key(coder_model)}})
    assert cm.window == 4_000
    await Agent(coder_model, capabilities=[cm]).run("hello")
    assert cm.window == 4_000 and cm.window_learned is not None
    assert cm.layer_state()["learned"]["window_model"] == model_key(coder_model)
    # One saved before the model was kept with it holds whichever model comes first, as it did.
    older = ContextManager(window=50_000)
    older.load_layer_state({"learned": {"window": [4_000, 50_000]}})
    await Agent(FunctionModel(lambda m, i: ModelResponse(parts=[TextPart("ok")]), model_name="other"),
                capabilities=[older]).run("hello")
    assert older.window == 4_000
