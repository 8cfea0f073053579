"""A "prompt is too long" is compacted and retried in every run, not only the first time.

The guard that stops a refused request from being compacted and retried for ever remembered the run
step it had compacted at, and a step number starts again at 1 in each run: after one recovery at the
first request of a run, every later run refused at its first request failed with no compaction
tried (and the CLI said the request was too long "even after compaction"). The guard is now the
request's own (its run and step): each refused request gets one compaction and one retry, and a
request refused again after its compaction still fails rather than looping. Against the fake
Anthropic server, over HTTP; its refusals name the size it counted, as Anthropic's do.
"""

from __future__ import annotations

import json

import pytest
from pydantic_ai import Agent
from pydantic_ai.exceptions import ModelContextWindowExceededError
from pydantic_ai.messages import ModelMessage
from pydantic_ai.models.anthropic import AnthropicModel
from pydantic_ai.providers.anthropic import AnthropicProvider

from compact_agent.context import CompactionEvent, ContextManager, Event
from tests.fakes._http import Outcome
from tests.fakes.anthropic_server import AnthropicReply, FakeAnthropicServer, _error

MESSAGE = "the queue drains slowly under load; " * 600  # about 5,000 tokens as the server counts


class Refusing(FakeAnthropicServer):
    """Refuses the requests whose numbers (1-based) are in `refuse` as too long, naming their size."""

    def __init__(self) -> None:
        super().__init__(lambda req: AnthropicReply("noted: " + "the worker restarts; " * 40))
        self.refuse: set[int] = set()
        self.outcomes: list[str] = []

    def serve_post(self, path: str, raw: bytes, headers: dict[str, str]) -> Outcome:
        if len(self.outcomes) + 1 in self.refuse:
            self.outcomes.append("refused")
            size = len(raw) // 4  # as the server counts (its usage reports count the same way)
            return _error(400, "invalid_request_error", f"prompt is too long: {size} tokens > {size - 1} maximum")
        self.outcomes.append(f"answered {len(json.loads(raw)['messages'])}")
        return super().serve_post(path, raw, headers)


def agent_for(server: Refusing, events: list[Event]) -> Agent[None, str]:
    model = AnthropicModel("claude-sonnet-4-5", provider=AnthropicProvider(api_key="sk-ant-test",
                                                                           base_url=server.base_url))
    cm = ContextManager(window=200_000)
    cm.event_handler = events.append
    return Agent(model, capabilities=[cm])


def reactive(events: list[Event]) -> list[CompactionEvent]:
    return [e for e in events if isinstance(e, CompactionEvent) and e.trigger == "reactive" and not e.failed]


async def test_a_refusal_at_the_same_step_of_a_later_run_is_compacted_and_retried() -> None:
    events: list[Event] = []
    server = Refusing()
    with server:
        agent = agent_for(server, events)
        history: list[ModelMessage] = []
        for run in range(1, 8):
            if run in (3, 6):  # the first request of the run (step 1 both times) is refused
                server.refuse.add(len(server.outcomes) + 1)
            result = await agent.run(f"message {run}: {MESSAGE}", message_history=history)
            history = result.all_messages()
    refused = [i for i, o in enumerate(server.outcomes) if o == "refused"]
    assert len(refused) == 2, server.outcomes
    assert all(server.outcomes[i + 1].startswith("answered") for i in refused), server.outcomes
    assert len(reactive(events)) == 2, [(e.layer, e.action) for e in events]


async def test_a_request_refused_again_after_its_compaction_fails_without_looping() -> None:
    events: list[Event] = []
    server = Refusing()
    with server:
        agent = agent_for(server, events)
        first = await agent.run(f"message 1: {MESSAGE}")
        server.refuse |= {2, 3, 4}  # the request, its retry after the compaction, and any other
        with pytest.raises(ModelContextWindowExceededError):
            await agent.run(f"message 2: {MESSAGE}", message_history=first.all_messages())
    assert server.outcomes == ["answered 1", "refused", "refused"], server.outcomes
    assert len(reactive(events)) == 1, [(e.layer, e.action) for e in events]
