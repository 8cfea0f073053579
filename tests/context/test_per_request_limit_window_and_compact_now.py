"""A run's `per_request_input_tokens_limit` below the window: a window the server names above it, and `compact_now`.

A server's window learned while the limit held the manager's limits (request_limit.py) was ignored
where it lay between the limit and the window given: a summary request refused by a server naming a
10,000-token window, under a 5,500-token limit and a 32,000-token window given, taught nothing, and
the next run without the limit was still sized to 32,000. It is learned now, the requests of the run
still held to the limit (the smaller of the two).

`compact_now(usage_limits=...)` with such a limit cut its summary request to the limit but sized what
the compaction keeps to the window: a 3,100-token ask kept whole (the window's budget for what the user
typed), a 4,755-token history, and the next run under the limit compacted again at once. It is sized to
the limit now, as a compaction in such a run is.
"""

from __future__ import annotations

from pydantic_ai import Agent
from pydantic_ai.exceptions import ModelHTTPError
from pydantic_ai.messages import ModelMessage, ModelResponse, TextPart, ToolCallPart
from pydantic_ai.models.function import AgentInfo, FunctionModel
from pydantic_ai.usage import RequestUsage, UsageLimits

from compact_agent.context import CompactionSettings, ContextManager, Event
from compact_agent.context.testing import library_request, reply_to_library_request
from tests.context.scripted_model import size

WINDOW, SERVER, LIMIT = 32_000, 10_000, 5_500
LIMITED = UsageLimits(per_request_input_tokens_limit=LIMIT)
REFUSAL = (f"This model's maximum context length is {SERVER} tokens. However, your messages resulted in "
           f"{SERVER + 400} tokens. Please reduce the length of the messages.")


class Server:
    """A provider of a 10,000-token `window` that may count the first summary request past it (its count
    of the library's instruction is not ours): (kind, size) of each request it answered in `sent`, the
    size of each it refused in `refused`."""

    def __init__(self, pages: int, refuse_first_summary: bool = False, window: int = SERVER) -> None:
        self.pages, self.refuse_first_summary, self.window = pages, refuse_first_summary, window
        self.sent: list[tuple[str, int]] = []
        self.refused: list[int] = []

    def __call__(self, messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        kind = library_request(messages) or "main"
        if size(messages) > self.window or (kind == "summary" and self.refuse_first_summary):
            self.refuse_first_summary = False
            self.refused.append(size(messages))
            raise ModelHTTPError(400, "fake", body={"error": {"message": REFUSAL, "code": "context_length_exceeded"}})
        self.sent.append((kind, size(messages)))
        usage = RequestUsage(input_tokens=size(messages), output_tokens=20)
        if (reply := reply_to_library_request(messages, "Pages read so far.", usage=usage)) is not None:
            return reply
        step = sum(k == "main" for k, _ in self.sent)
        return ModelResponse(parts=[ToolCallPart("read", {"page": step})] if step <= self.pages
                             else [TextPart("done")], usage=usage)


def reading_agent(server: Server, cm: ContextManager) -> Agent[None, str]:
    agent = Agent(FunctionModel(server), capabilities=[cm])

    @agent.tool_plain
    def read(page: int) -> str:
        """One page."""
        return f"page {page}: " + " ".join(f"line-{page}-{i:03d}" for i in range(250))

    return agent


async def test_a_window_named_between_the_limit_and_the_window_is_learned_and_the_run_stays_held() -> None:
    events: list[Event] = []
    cm = ContextManager(window=WINDOW, settings=CompactionSettings(compaction_records=False),
                        event_handler=events.append)
    first = Server(pages=12, refuse_first_summary=True)
    result = await reading_agent(first, cm).run("Read the pages, then say done.", usage_limits=LIMITED)
    assert result.output == "done" and len(first.refused) == 1
    assert max(n for _, n in first.sent) <= LIMIT  # the requests of the run still held to the smaller, the limit
    learned = [(e.tokens_after, e.detail["given"], e.detail.get("request")) for e in events
               if e.layer == "window" and e.action == "learned"]
    assert learned == [(SERVER, WINDOW, "summary")]
    assert cm.window_learned is not None and (cm.window_learned.window, cm.window_learned.given) == (SERVER, WINDOW)
    assert cm.limits.window == SERVER  # between runs: the server's window, not the limit's nor the one given

    second = Server(pages=20)  # 14,000 tokens of pages, in a run that sets no limit
    events.clear()
    result = await reading_agent(second, cm).run("Read the pages again, then say done.",
                                                  message_history=result.all_messages())
    assert result.output == "done"
    assert not second.refused and [k for k, _ in second.sent].count("summary")  # compacted by the window learned


async def test_compact_now_under_a_limit_keeps_what_a_compaction_under_it_keeps() -> None:
    ask = "Read the pages, then say done. " + "Keep every figure exact. " * 500  # ~3,100 tokens typed
    events: list[Event] = []
    cm = ContextManager(window=WINDOW, settings=CompactionSettings(compaction_records=False),
                        event_handler=events.append)
    server = Server(pages=16, window=WINDOW)
    agent = reading_agent(server, cm)
    history = (await agent.run(ask)).all_messages()  # 14,600 tokens: below the 32,000 window's threshold
    assert not [e for e in events if e.layer == "compact"]

    compacted = await cm.compact_now(history, usage_limits=LIMITED)
    made = [e for e in events if e.layer == "compact" and e.action != "failed"]
    assert len(made) == 1 and made[0].tokens_after <= LIMIT // 2, made[0]  # the ask by its two ends, not whole
    assert max(n for kind, n in server.sent if kind == "summary") <= LIMIT

    events.clear()
    server.pages, server.sent = 2, []
    result = await agent.run("Say done.", message_history=compacted, usage_limits=LIMITED)
    assert result.output == "done"
    assert not [e for e in events if e.layer in ("compact", "thrash")]  # no compaction again at once
