"""Tools that join a run part-way are counted before the provider reports a request carrying them.

A request's size is our estimate of its messages and tool definitions (names, descriptions, schemas)
plus what the provider's reports showed it counts beyond that (`Calibration.fixed`): the JSON each
definition is wrapped in, about 25 tokens a tool on OpenAI's chat API. That part was learned with the
tools of the first requests. Thirty tools that a prepared toolset let through at step 8, or that a
tool search revealed, went uncounted (some 750 tokens) until a request with them came back: the
turn, and every summary request of the compaction that should have made room, were sent over the
window, and the run ended with the provider's raw 400. Tools held back until a tool search reveals
them were counted though they were not sent (4,300 tokens of a 280-token request), so every report
was judged implausible and the ratio learned later was wrong.

Now the framing of the tools sent is estimated, and the difference from the tools the reports were
learned with is counted in both the request's size and the estimate each report is learned against
(measuring.py `framing_since`); tools held back are not counted (`_tool_defs`), and the message
pydantic-ai writes to announce the tools that joined is (plumbing/tokens.py `part_tokens`).
Against the strict fake OpenAI server, which refuses any prompt over its window.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from pydantic_ai import Agent, RunContext, Tool
from pydantic_ai.messages import ModelRequest
from pydantic_ai.models.openai import OpenAIChatModel
from pydantic_ai.providers.openai import OpenAIProvider
from pydantic_ai.tools import ToolDefinition
from pydantic_ai.toolsets import FunctionToolset
from pydantic_ai.usage import UsageLimits

from compact_agent.context import CompactionSettings, ContextManager, Event, WindowTooSmallError
from compact_agent.context.plumbing import tokens
from tests.fakes.openai_server import ChatRequest, FakeOpenAIServer, Reply

messages_module = pytest.importorskip("pydantic_ai.messages")
Delta: Any = getattr(messages_module, "ToolAvailabilityDeltaPart", None)
pytestmark = pytest.mark.skipif(Delta is None, reason="pydantic-ai before 2.68 has no tool availability delta")

SERVICES = 25


def responder(searches: bool = False) -> Callable[[ChatRequest], Reply]:
    """Inspect the services one by one (with a tool search at steps 6 to 8 when `searches`), then answer."""
    step = {"n": 0}

    def reply(req: ChatRequest) -> Reply:
        if "<summary>" in req.last_user_text():
            return Reply.text("<summary>Services inspected so far.</summary>")
        step["n"] += 1
        n = step["n"]
        if searches and 6 <= n <= 8:
            return Reply.tools([("search_tools", {"queries": [("alpha", "beta", "gamma")[n - 6]]})])
        return Reply.text("all inspected") if n > SERVICES else Reply.tools([("inspect", {"n": n})])
    return reply


def diagnostic(name: str, description: str) -> Tool[None]:
    def run(x: int) -> str:
        return "ok"
    return Tool(run, name=name, description=description)


async def run_agent(window: int, records: bool, toolset: Any, searches: bool = False
                    ) -> tuple[FakeOpenAIServer, list[Event], ContextManager, str | BaseException]:
    events: list[Event] = []
    with FakeOpenAIServer(responder(searches), window=window) as server:
        model = OpenAIChatModel("fake-model", provider=OpenAIProvider(base_url=server.base_url, api_key="k"))
        cm = ContextManager(window=window, event_handler=events.append,
                            settings=CompactionSettings(compaction_records=records))
        agent = Agent(model, capabilities=[cm], toolsets=[toolset])

        @agent.tool_plain
        def inspect(n: int) -> str:
            """Inspect a service."""
            return f"service {n}: " + " ".join(f"metric{n}-{i}=ok" for i in range(120))

        try:
            result = await agent.run("Inspect the services one by one.", usage_limits=UsageLimits(request_limit=100))
            outcome: str | BaseException = result.output
        except (WindowTooSmallError, Exception) as e:  # noqa: BLE001  (what the run ended with is the test's)
            outcome = e
    return server, events, cm, outcome


def shown_from(step: int, count: int = 30) -> Any:
    """30 tools a prepared toolset lets through from run step `step` on."""
    async def until(ctx: RunContext[None], defs: list[ToolDefinition]) -> list[ToolDefinition]:
        return defs if ctx.run_step >= step else []
    return FunctionToolset([diagnostic(f"extra_{i}", f"Extra diagnostic {i}. " + "It checks many things. " * 20)
                            for i in range(count)]).prepared(until)


def refused(server: FakeOpenAIServer) -> list[str]:
    return [f"request {r.index} ({'summary' if '<summary>' in r.last_user_text() else 'turn'}, {len(r.tools)} tools): "
            f"{r.prompt_tokens} tokens" for r, _, _ in server.rejected]


@pytest.mark.parametrize("records", [True, False], ids=["records", "summaries"])
async def test_tools_let_through_at_step_8_send_nothing_over_the_window(records: bool) -> None:
    """8K window: the run compacts around the 30 new tools and ends as it does with them there from
    the start; no turn and no summary request is refused. (Before: the request at step 8 went out at
    8,479 tokens.)"""
    server, events, _, outcome = await run_agent(8_000, records, shown_from(8))
    assert refused(server) == []
    assert outcome == "all inspected"
    assert max(len(r.tools) for r in server.requests) == 31
    assert any(e.layer == "compact" and e.action in ("record", "full", "partial") for e in events)


async def test_a_window_too_small_for_the_new_tools_is_said_before_sending() -> None:
    """6K window: the 30 tools' definitions alone take 5,290 of it, so no request fits: the run ends with
    the library's one-line WindowTooSmallError naming the tool definitions, and nothing is sent over
    the window (before: the provider's raw 400, 6,031 tokens)."""
    server, _, _, outcome = await run_agent(6_000, True, shown_from(8))
    assert refused(server) == []
    assert isinstance(outcome, WindowTooSmallError), repr(outcome)
    assert "tool definitions" in str(outcome) and "\n" not in str(outcome)


async def test_the_size_of_the_first_request_with_the_new_tools_is_the_servers() -> None:
    """The request that first carries the 30 tools is measured (`last_tokens` as the server receives it,
    before its report) within 2% of the server's count, in a window large enough that nothing is cut
    (before: 7,572 against 8,479)."""
    measured: list[tuple[int, int, int]] = []
    cm = ContextManager(window=100_000)
    answer = responder()

    def reply(req: ChatRequest) -> Reply:
        measured.append((len(req.tools), cm.last_tokens, req.prompt_tokens))
        return answer(req)

    with FakeOpenAIServer(reply, window=100_000) as server:
        model = OpenAIChatModel("fake-model", provider=OpenAIProvider(base_url=server.base_url, api_key="k"))
        agent = Agent(model, capabilities=[cm], toolsets=[shown_from(8)])

        @agent.tool_plain
        def inspect(n: int) -> str:
            """Inspect a service."""
            return f"service {n}: " + " ".join(f"metric{n}-{i}=ok" for i in range(120))

        await agent.run("Inspect the services one by one.", usage_limits=UsageLimits(request_limit=100))
    _, ours, servers = next(m for m in measured if m[0] == 31)
    assert abs(ours - servers) <= 0.02 * servers, (ours, servers)


async def test_tools_found_by_a_tool_search_send_nothing_over_the_window() -> None:
    """pydantic-ai's tool search (DeferredLoadingToolset): the 30 held-back tools are not counted until
    found, then counted; 8K window, summaries: no request refused (before: 9 of 19, eight of them
    summary requests, and the run ended with the raw 400)."""
    deferred = pytest.importorskip("pydantic_ai.toolsets.deferred_loading")
    hidden = deferred.DeferredLoadingToolset(FunctionToolset(
        [diagnostic(f"{group}_diag_{k}", f"{group} diagnostic {k}: " + "checks many things. " * 20)
         for group in ("alpha", "beta", "gamma") for k in range(10)]))
    server, events, _, outcome = await run_agent(8_000, False, hidden, searches=True)
    assert refused(server) == []
    assert outcome == "all inspected"
    assert server.requests[0].prompt_tokens < 400 and max(len(r.tools) for r in server.requests) == 32
    assert not [e for e in events if e.layer == "calibration" and e.action == "rejected"]


def test_the_announcement_of_tools_that_joined_is_counted() -> None:
    """pydantic-ai says 'The following tool(s) are now available: `a`, `b`' for a ToolAvailabilityDeltaPart:
    30 names are some 100 tokens, estimated as nothing before."""
    names = [f"extra_{i}" for i in range(30)]
    said = "The following tool(s) are now available: " + ", ".join(f"`{n}`" for n in names)
    estimated = tokens.estimate([ModelRequest(parts=[Delta(tools_added=names)])])
    assert estimated >= tokens.text_tokens(said)
