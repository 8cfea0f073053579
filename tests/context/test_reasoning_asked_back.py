"""Where the provider asks for the reasoning of the model's tool calls back (DeepSeek's thinking mode:
its `reasoning_content` "must be passed back to the API in all subsequent requests", else a 400), no
step that leaves the model's thinking out of a request takes that reasoning, and the last resort
empties it (the field goes out empty) only where nothing but the first message's cut or a fold would
make the request fit (thinking_out.py, fit.py).

Before, a request over the hard limit only by the model's thinking went without all of it, and the
last resort's thinking step left out every response's: a `--base-url` server in 'auto' mode was then
sent no `reasoning_content` at all, which DeepSeek refuses. Elsewhere nothing changes (kept for every
provider, the reasoning cost recall in the analyzer's replays, 0.7501 -> 0.7494 at 32K).
"""

from __future__ import annotations

from pathlib import Path

from pydantic_ai import Agent
from pydantic_ai.messages import (
    ModelMessage,
    ModelRequest,
    ModelResponse,
    TextPart,
    ThinkingPart,
    ToolCallPart,
    ToolReturnPart,
    UserPromptPart,
)
from pydantic_ai.models import ModelRequestParameters
from pydantic_ai.models.fallback import FallbackModel
from pydantic_ai.models.function import AgentInfo, FunctionModel
from pydantic_ai.models.instrumented import InstrumentedModel
from pydantic_ai.models.openai import OpenAIChatModel
from pydantic_ai.profiles.openai import OpenAIModelProfile
from pydantic_ai.providers.deepseek import DeepSeekProvider
from pydantic_ai.providers.openai import OpenAIProvider
from pydantic_ai.settings import ModelSettings

from compact_agent.context import ContextManager
from compact_agent.context.decisions.fit import shrink_to_fit
from compact_agent.context.decisions.thinking_out import (
    asks_reasoning_back,
    named_to_ask_reasoning_back,
    thinking_held_out,
    thinking_over_limit,
)
from compact_agent.context.layers.budget import ToolResultBudget
from compact_agent.context.plumbing.events import Event
from compact_agent.context.plumbing.settings import CompactionSettings
from compact_agent.context.plumbing.thinking import ThinkingCounts
from tests.fakes.openai_server import ChatRequest, FakeOpenAIServer, Reply

THOUGHT = "consider the call sites then "  # 29 characters


def call(reasoning: str, call_id: str) -> ModelResponse:
    """A step that thought `reasoning` (in DeepSeek's field, as pydantic-ai keeps it) and made a call."""
    return ModelResponse(parts=[ThinkingPart(reasoning, id="reasoning_content", provider_name="openai"),
                                ToolCallPart("glob", {"pattern": "*.py"}, call_id)])


def result(call_id: str, text: str = "a.py") -> ModelRequest:
    return ModelRequest(parts=[ToolReturnPart("glob", text, tool_call_id=call_id)])


def manager(asked_back: bool, tmp_path: Path | None = None) -> tuple[ContextManager, list[Event]]:
    cm = ContextManager(window=8_000)
    cm.provider, cm.reasoning_asked_back = "openai", asked_back
    if tmp_path is not None:
        cm.layers = [ToolResultBudget(CompactionSettings(), tmp_path / "spill")]
    events: list[Event] = []
    cm.emit = events.append  # type: ignore[method-assign,assignment]
    return cm, events


def reasoning(m: ModelMessage) -> list[str]:
    return [p.content for p in m.parts if isinstance(p, ThinkingPart)]


def test_the_models_that_ask_for_it_back_are_deepseeks_thinking_ones() -> None:
    asked = ["deepseek-reasoner", "deepseek-v4-pro", "deepseek-v4-flash", "deepseek-flash",
             "deepseek/deepseek-v4-pro", "deepseek-ai/DeepSeek-V4-Flash"]
    not_asked = ["deepseek-chat", "gpt-4.1", "claude-sonnet-4-5", "qwen3-coder", "fake-model"]
    assert [named_to_ask_reasoning_back(n) for n in asked] == [True] * len(asked)
    assert [named_to_ask_reasoning_back(n) for n in not_asked] == [False] * len(not_asked)
    local = OpenAIProvider(base_url="http://127.0.0.1:9/v1", api_key="k")
    assert asks_reasoning_back(OpenAIChatModel("deepseek-v4-flash", provider=local))  # by its name
    assert not asks_reasoning_back(OpenAIChatModel("qwen3-coder", provider=local))
    said = OpenAIModelProfile(openai_chat_thinking_requires_field_on_tool_calls=True,  # by its profile
                              thinking_enabled_by_default=True)
    assert asks_reasoning_back(OpenAIChatModel("my-reasoner", provider=local, profile=said))
    deepseek = DeepSeekProvider(api_key="k")
    assert asks_reasoning_back(OpenAIChatModel("deepseek-reasoner", provider=deepseek))
    assert asks_reasoning_back(OpenAIChatModel("deepseek-v4-flash", provider=deepseek))
    assert not asks_reasoning_back(OpenAIChatModel("my-reasoner", provider=local, profile=said),
                                   {"thinking": False})  # the run turned its thinking off
    assert not asks_reasoning_back(OpenAIChatModel("my-reasoner", provider=local, profile=said),
                                   {"openai_reasoning_effort": "none"})
    assert not asks_reasoning_back(FunctionModel(lambda m, i: ModelResponse(parts=[TextPart("hi")])))


def test_deepseek_chat_asks_for_it_back_only_where_the_request_thinks() -> None:
    """DeepSeek's provider gives every model name the profile's flag, deepseek-chat's too, whose requests
    do not think (pydantic-ai fills the field in only when the request thinks): counted as asking for its
    reasoning back, a deepseek-chat session holding thinking (after `/model deepseek-chat` from a
    thinking model) kept the reasoning of its calls in every request, and the last resort emptied it
    instead of leaving it out. Asked to think, it does ask for it back."""
    chat = OpenAIChatModel("deepseek-chat", provider=DeepSeekProvider(api_key="k"))
    assert not asks_reasoning_back(chat)
    assert not asks_reasoning_back(chat, {"thinking": False})
    assert asks_reasoning_back(chat, {"thinking": True})
    assert asks_reasoning_back(chat, {"openai_reasoning_effort": "high"})
    assert asks_reasoning_back(chat, None, ModelRequestParameters(thinking="high"))

    flagged = OpenAIModelProfile(openai_chat_thinking_requires_field_on_tool_calls=True)  # a run's settings
    seen: list[bool] = []
    for settings in (None, ModelSettings(thinking=True)):
        cm = ContextManager(window=8_000)

        def answer(messages: list[ModelMessage], info: AgentInfo, cm: ContextManager = cm) -> ModelResponse:
            seen.append(cm.reasoning_asked_back)
            return ModelResponse(parts=[TextPart("ok")])

        Agent(FunctionModel(answer, profile=flagged), capabilities=[cm]).run_sync("hi", model_settings=settings)
    assert seen == [False, True]


def test_a_fallback_model_asks_for_it_back_where_one_of_its_models_does() -> None:
    """A `FallbackModel` has no profile of its own (reading it raises NotImplementedError): a library run
    on one failed at its first request. Any of its models may serve the request, so it asks for the
    reasoning back where one of them does; so does a wrapper around it."""
    def answer(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        return ModelResponse(parts=[TextPart("ok")])

    local = OpenAIProvider(base_url="http://127.0.0.1:9/v1", api_key="k")
    plain = FallbackModel(FunctionModel(answer), FunctionModel(answer))
    agent = Agent(plain, capabilities=[ContextManager(window=8_000)])
    assert agent.run_sync("hi").output == "ok"
    assert not asks_reasoning_back(plain) and not asks_reasoning_back(InstrumentedModel(plain))
    thinking = FallbackModel(OpenAIChatModel("qwen3-coder", provider=local),
                             OpenAIChatModel("deepseek-v4-flash", provider=local))
    assert asks_reasoning_back(thinking) and asks_reasoning_back(InstrumentedModel(thinking))


async def test_a_library_run_of_a_deepseek_thinking_model_sends_the_reasoning_of_its_calls_back() -> None:
    """A plain `Agent(OpenAIChatModel("deepseek-v4-flash", provider=OpenAIProvider(base_url=...)))` with
    the manager, against a server that refuses what DeepSeek refuses: steps that think ~7,500 tokens of
    an 8,000 window. The manager learns from the run's model that the reasoning is asked back; it used
    to leave it out (only the terminal agent told it), and the second request was refused."""
    long = "consider the file then check " * 1_035
    steps = iter([Reply.tools([("glob", {"pattern": "*.py"})], content="Looking.", reasoning_content=long)] * 2
                 + [Reply.text("Done thinking.", reasoning_content=long)])

    def answer(req: ChatRequest) -> Reply:
        if "CRITICAL: Respond with TEXT ONLY" in req.last_user_text():
            return Reply.text("<summary>1. Primary Request: think it over\n</summary>")
        return next(steps)

    with FakeOpenAIServer(answer, window=8_000, model="deepseek-v4-flash", thinking_mode=True) as server:
        model = OpenAIChatModel("deepseek-v4-flash",
                                provider=OpenAIProvider(base_url=server.base_url, api_key="k"))
        agent = Agent(model, capabilities=[ContextManager(window=8_000)])

        @agent.tool_plain
        def glob(pattern: str) -> str:
            """List files."""
            return "a.py"

        result = await agent.run("think it over")
    assert result.output == "Done thinking." and server.rejected == []
    sent = [m.get("reasoning_content") for r in server.requests for m in r.messages
            if m.get("role") == "assistant" and m.get("tool_calls")]
    assert sent and None not in sent, sent


def over_the_hard_limit() -> list[ModelMessage]:
    """An earlier turn: a step that thought ~1,000 tokens, and its answer ~5,000; then a new question.
    Over the hard limit by the thinking, under the threshold without the answer's alone."""
    return [ModelRequest(parts=[UserPromptPart("look at the files")]), call(THOUGHT * 138, "c1"), result("c1"),
            ModelResponse(parts=[ThinkingPart(THOUGHT * 690, id="reasoning_content", provider_name="openai"),
                                 TextPart("There is a.py.")]),
            ModelRequest(parts=[UserPromptPart("and now?")])]


def test_a_request_over_the_hard_limit_by_its_thinking_keeps_that_of_the_calls() -> None:
    for asked_back in (True, False):
        cm, _ = manager(asked_back)
        view = over_the_hard_limit()
        hard = cm.schedule.hard_limit(cm)
        shaped, size, cut = thinking_over_limit(cm, view, cm.measure(view), hard)
        assert cm.measure(view) > hard and size < cm.limits.threshold
        assert cut == (1 if asked_back else 2)
        assert reasoning(shaped[1]) == ([THOUGHT * 138] if asked_back else [])
        assert reasoning(shaped[3]) == []
        held, cut, _ = thinking_held_out(cm, view)  # and the next requests, before the layers
        assert cut == (1 if asked_back else 2) and reasoning(held[1]) == reasoning(shaped[1])


def test_the_last_resorts_thinking_first_step_takes_the_answers_reasoning_not_the_calls(tmp_path: Path) -> None:
    """DeepSeek, as its reports show (not yet trusted: a request is judged to fit with it): the earlier
    turns' reasoning is not counted, and the last resort leaves it out first; where it is asked back,
    that of the calls stays."""
    for asked_back in (True, False):
        cm, events = manager(asked_back, tmp_path)
        cm.calibration.thinking = ThinkingCounts(earlier=False, current=True, votes=1, current_votes=1)
        view = over_the_hard_limit()
        shrunk, _ = shrink_to_fit(cm, view, cm.fit_size(view), limit=cm.fit_size(view) - 4_000)
        [event] = [e for e in events if e.action == "shrink"]
        assert event.detail["thinking_left_out"] == (1 if asked_back else 2), event.detail
        assert event.detail["rounds_left_out"] == 0 and event.detail["previews"] == 0
        assert reasoning(shrunk[1]) == ([THOUGHT * 138] if asked_back else []) and reasoning(shrunk[3]) == []


def one_step_too_big() -> list[ModelMessage]:
    """The turn under way: a step that thought ~8,300 tokens (DeepSeek counts the turn under way's), its
    result: over an 8K window by that reasoning alone."""
    return [ModelRequest(parts=[UserPromptPart("look at the files " * 40)]), call(THOUGHT * 1_150, "c1"),
            result("c1")]


def test_where_nothing_else_fits_the_reasoning_of_the_calls_is_emptied_not_left_out(tmp_path: Path) -> None:
    cm, events = manager(True, tmp_path)
    view = one_step_too_big()
    shrunk, size = shrink_to_fit(cm, view, cm.fit_size(view))
    [event] = [e for e in events if e.action == "shrink"]
    assert size <= cm.limits.window and event.detail["reasoning_emptied"] == 1, event.detail
    assert event.detail["thinking_left_out"] == 0  # emptied, not left out: the line says which
    # Before the user's words are cut, and before any fold: it is what went.
    assert event.detail["first_message_cut"] == 0 and event.detail["steps_folded"] == 0
    assert shrunk[0] is view[0]
    [empty] = [p for p in shrunk[1].parts if isinstance(p, ThinkingPart)]
    assert (empty.content, empty.id, empty.provider_name) == ("", "reasoning_content", "openai")
    assert any(isinstance(p, ToolCallPart) for p in shrunk[1].parts)
    assert reasoning(view[1]) == [THOUGHT * 1_150]  # the history keeps it

    cm, events = manager(False, tmp_path)  # elsewhere: left out, as before
    shrunk, _ = shrink_to_fit(cm, view, cm.fit_size(view))
    assert reasoning(shrunk[1]) == []
