"""A run's usage limits as they hold the library's own requests, and where the manager is given twice.

`UsageLimits(per_request_input_tokens_limit=...)` is pydantic-ai's guard on the context one request
sends. A compaction's summary request carries the whole history the agent's last request sent and
more (the newest results, the instruction), and was sent past that limit with nothing said: a caller
guarding context size at 5,800 tokens saw a 6,087-token summary request go out. It is now cut to fit
the limit, as to a smaller window, and a response reporting more input than the limit allows ends the
run with pydantic-ai's words, naming the summary request (as pydantic-ai checks its own responses).
Against the fake OpenAI-compatible server on 127.0.0.1.

A `tool_calls_limit` counts the agent's tool calls, none of the library's requests: its error no
longer adds the count of the library's summary requests (which only token and cost limits count).

One `ContextManager` given to the agent and to the run was refused as "given to the agent twice
(capabilities=[cm, cm])": the user looked for a list holding it twice that was not there.
"""

from __future__ import annotations

from collections.abc import Callable

import pytest
from pydantic_ai import Agent
from pydantic_ai.exceptions import UsageLimitExceeded, UserError
from pydantic_ai.messages import ModelMessage, ModelResponse, TextPart, ToolCallPart
from pydantic_ai.models.function import AgentInfo, FunctionModel
from pydantic_ai.models.openai import OpenAIChatModel
from pydantic_ai.providers.openai import OpenAIProvider
from pydantic_ai.usage import RequestUsage, UsageLimits

from compact_agent.context import CompactionSettings, ContextManager
from compact_agent.context.testing import library_request, reply_to_library_request
from tests.fakes.openai_server import ChatRequest, FakeOpenAIServer, Reply

from .pages_agent import WINDOW, is_summary_request, page_text, reading

LIMIT = 5_800  # above every request the agent itself sends here (5,500 at most), below its summary request's 6,087


async def read_pages(responder: Callable[[ChatRequest], Reply], limits: UsageLimits) -> tuple[str, FakeOpenAIServer]:
    """Twelve pages read through a tool in an 8K window: one compaction, a summary, on the way."""
    with FakeOpenAIServer(responder, window=WINDOW, model="fake-model") as server:
        cm = ContextManager(window=WINDOW, settings=CompactionSettings(compaction_records=False))
        model = OpenAIChatModel("fake-model", provider=OpenAIProvider(base_url=server.base_url, api_key="k"))
        agent: Agent[None, str] = Agent(model, capabilities=[cm])

        @agent.tool_plain
        def read(page: int) -> str:
            """Read a page."""
            return page_text(page)

        result = await agent.run("Read every page.", usage_limits=limits)
    return result.output, server


async def test_the_summary_request_is_cut_to_the_runs_per_request_input_limit() -> None:
    unlimited = UsageLimits(request_limit=200)
    _, server = await read_pages(reading("<summary>Pages read so far.</summary>", last=12), unlimited)
    summaries = [r.prompt_tokens for r in server.requests if is_summary_request(r)]
    mains = [r.prompt_tokens for r in server.requests if not is_summary_request(r)]
    assert max(mains) <= LIMIT < max(summaries)  # what the limit guards here: the summary request alone is past it

    limited = UsageLimits(request_limit=200, per_request_input_tokens_limit=LIMIT)
    output, server = await read_pages(reading("<summary>Pages read so far.</summary>", last=12), limited)
    assert output == "done"
    sent = [r.prompt_tokens for r in server.requests if is_summary_request(r)]
    assert sent and max(sent) <= LIMIT  # the server's own count of what it was sent
    assert max(sent) > LIMIT * 0.8  # cut to the limit, not far below it


async def test_a_summary_request_reported_past_the_limit_ends_the_run_naming_it() -> None:
    """The cut is by an estimate; the provider's count of the request, as its response reports it, is
    held to the limit as pydantic-ai holds its own responses: the run ends there."""
    def answer(req: ChatRequest, read: int) -> Reply | None:
        if is_summary_request(req):
            return Reply.text("<summary>Pages read so far.</summary>", usage={"prompt_tokens": LIMIT + 1})
        return None

    with pytest.raises(UsageLimitExceeded) as caught:
        await read_pages(reading(answer, last=12), UsageLimits(request_limit=200, per_request_input_tokens_limit=LIMIT))
    said = str(caught.value)
    assert said.startswith(f"Exceeded the per_request_input_tokens_limit of {LIMIT:d} "
                           f"(request_input_tokens={LIMIT + 1}): a summary request of the context manager's own")
    assert "\n" not in said


async def test_a_tool_calls_limit_says_nothing_of_the_librarys_requests() -> None:
    asked: list[str] = []

    def provider(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        asked.append(library_request(messages) or "main")
        size = sum(len(str(getattr(p, "content", "") or getattr(p, "args", ""))) for m in messages for p in m.parts)
        usage = RequestUsage(input_tokens=size // 4, output_tokens=20)
        if (reply := reply_to_library_request(messages, "Pages read so far.", usage=usage)) is not None:
            return reply
        return ModelResponse(parts=[ToolCallPart("read", {"page": len(asked)})], usage=usage)

    cm = ContextManager(window=6_000, settings=CompactionSettings(compaction_records=False))
    agent: Agent[None, str] = Agent(FunctionModel(provider), capabilities=[cm])

    @agent.tool_plain
    def read(page: int) -> str:
        """One page."""
        return f"page {page}: " + "lorem ipsum " * 200

    with pytest.raises(UsageLimitExceeded) as caught:
        await agent.run("Read the pages.", usage_limits=UsageLimits(tool_calls_limit=10))
    assert "summary" in asked  # the run counted a summary of the library's before the limit was reached
    said = str(caught.value)
    assert said.startswith("The next tool call(s) would exceed the tool_calls_limit of 10 (tool_calls=11).")
    assert "context manager" not in said


def answering() -> FunctionModel:
    return FunctionModel(lambda messages, info: ModelResponse(parts=[TextPart("answer")]))


@pytest.mark.parametrize(("on_agent", "on_run", "where"), [
    (1, 1, "to both the agent and the run (Agent(capabilities=[cm]) and agent.run(capabilities=[cm]))"),
    (0, 2, "to the run twice (capabilities=[cm, cm])"),
    (2, 0, "to the agent twice (capabilities=[cm, cm])"),
])
async def test_a_manager_given_twice_is_named_where_it_was_given(on_agent: int, on_run: int, where: str) -> None:
    cm = ContextManager(window=64_000)
    agent = Agent(answering(), capabilities=[cm] * on_agent)
    with pytest.raises(UserError) as caught:
        await agent.run("hello", capabilities=[cm] * on_run or None)
    assert str(caught.value) == f"this ContextManager is given {where}: give it once"
    assert (await Agent(answering(), capabilities=[cm]).run("hello")).output == "answer"  # nothing left running
