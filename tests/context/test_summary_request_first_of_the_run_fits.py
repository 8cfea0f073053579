"""A summary request made before the provider has reported any request fits the window all the same.

The summary request fills the window (its `max_tokens` is what the input leaves, less the estimate's
2% margin), so it is only as right as the estimate of its input. Before the first report the fixed
part it carries, the tool definitions, is our estimate of their names, descriptions and schemas,
while the provider counts them as sent, each wrapped in the chat API's JSON: a run whose first
request was already over the threshold (an MCP server whose instructions filled most of a 16K
window, 25 tools) had its summary request refused ("you requested 16,294 tokens (12,910 in the
messages, 3,384 in the completion)"), and the turn went on with that message cut, unsummarised."""

from __future__ import annotations

from pydantic_ai import Agent
from pydantic_ai.models.openai import OpenAIChatModel
from pydantic_ai.providers.openai import OpenAIProvider
from pydantic_ai.tools import Tool

from compact_agent.context import CompactionSettings, ContextManager, Event
from tests.fakes.openai_server import ChatRequest, FakeOpenAIServer, Reply

WINDOW = 16_000


def tool(i: int) -> Tool[None]:
    def run(path: str, limit: int = 0) -> str:
        return path
    return Tool(run, name=f"tool_{i:02d}", description=f"Tool number {i}: does one thing to a file of the project.")


def answer(req: ChatRequest) -> Reply:
    if req.tool_choice == "none" or not req.tools:
        return Reply.text("<summary>The user asked to read the servers' notes; nothing was done yet.</summary>")
    return Reply.text("done")


async def test_a_summary_request_before_any_report_is_sent_within_the_window() -> None:
    events: list[Event] = []
    with FakeOpenAIServer(answer, window=WINDOW, model="m") as server:
        model = OpenAIChatModel("m", provider=OpenAIProvider(base_url=server.base_url, api_key="k"))
        cm = ContextManager(window=WINDOW, event_handler=events.append,  # a summary asked for, not a record
                            settings=CompactionSettings(compaction_records=False))
        agent: Agent[None, str] = Agent(model, deps_type=type(None), tools=[tool(i) for i in range(30)],
                                        capabilities=[cm])
        notes = "Server notes: use the tools with care. " * 1_100  # ~10,700 tokens: over the threshold at once
        result = await agent.run(f"{notes}\nSAY hi")
    assert [(status, body) for _, status, body in server.rejected] == []  # refused once without the framing counted
    summary = [r for r in server.requests if r.tool_choice == "none" or not r.tools]
    assert summary and all(r.tools for r in summary), [(e.kind, e.action) for e in events]  # the tools sent with it
    for r in server.requests:
        asked = r.body.get("max_completion_tokens") or r.body.get("max_tokens") or 0
        assert r.prompt_tokens + asked <= WINDOW
    assert result.output == "done"
