"""A turn whose model request failed, tried again the way docs/library.md's stored-conversation example runs turns.

The store is told each request before it is sent, so a run that failed before its answer leaves its
prompt (and the steps it took) in the store, unanswered. The page's per-turn example runs
`agent.run(prompt, message_history=store.load_messages())`; a program that tried the failed turn again
so sent the prompt twice (pydantic-ai merges it into the unanswered request), and the store kept both,
with nothing on the page to say so. The page now says to send the request again with no new prompt;
these tests check what it says, as a program meets it."""

from __future__ import annotations

from pathlib import Path

from pydantic_ai import Agent
from pydantic_ai.messages import (
    ModelMessage,
    ModelRequest,
    ModelResponse,
    TextPart,
    ToolCallPart,
    UserPromptPart,
)
from pydantic_ai.models.function import AgentInfo, FunctionModel

from compact_agent.context import ContextManager, Event, InMemoryStore
from compact_agent.session.store import SessionStore

PAGE = Path(__file__).resolve().parents[2] / "docs" / "library.md"


class FailsOnce:
    """A provider that fails its `fail_at`-th request (counted from 1), looks a topic up when asked, and
    records the user's prompts of every request it answers."""

    def __init__(self, fail_at: int) -> None:
        self.calls, self.fail_at = 0, fail_at
        self.prompts: list[list[str]] = []

    def __call__(self, messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        self.calls += 1
        if self.calls == self.fail_at:
            raise ConnectionError("the provider is down")
        self.prompts.append([str(p.content) for m in messages if isinstance(m, ModelRequest)
                             for p in m.parts if isinstance(p, UserPromptPart)])
        last = messages[-1]
        if any(isinstance(p, UserPromptPart) and "look up" in str(p.content) for p in last.parts):
            return ModelResponse(parts=[ToolCallPart("lookup", {"topic": "tides"})])
        return ModelResponse(parts=[TextPart("done")])


def agent_on(store: InMemoryStore | SessionStore, model: FailsOnce, events: list[Event]) -> Agent[None, str]:
    """One turn's agent, as the page's example makes it: a new manager on the conversation's store."""
    agent = Agent(FunctionModel(model), capabilities=[ContextManager(window=8_000, store=store,
                                                                     event_handler=events.append)])

    @agent.tool_plain
    def lookup(topic: str) -> str:
        """Look a topic up."""
        return f"{topic}: high at noon"

    return agent


async def failed_turn(store: InMemoryStore | SessionStore, model: FailsOnce, prompt: str) -> None:
    await agent_on(store, model, []).run("hello", message_history=store.load_messages())
    try:
        await agent_on(store, model, []).run(prompt, message_history=store.load_messages())
    except ConnectionError:
        return
    raise AssertionError("the turn was to fail")


def test_the_page_says_how_to_try_a_failed_turn_again() -> None:
    page = " ".join(PAGE.read_text(encoding="utf-8").split())
    assert "**Trying a failed turn again.**" in page
    assert "`agent.run(None, message_history=store.load_messages())`" in page
    assert "sends it twice: pydantic-ai merges it into the unanswered request" in page


async def test_a_turn_that_failed_at_its_first_request_is_sent_again_once(tmp_path: Path) -> None:
    store, model, seen = SessionStore(tmp_path, "s1"), FailsOnce(fail_at=2), list[Event]()
    await failed_turn(store, model, "what is new?")
    history = store.load_messages()
    assert isinstance(history[-1], ModelRequest) and len(history) == 3  # the prompt, unanswered

    again = await agent_on(SessionStore(tmp_path, "s1"), model, seen).run(None, message_history=history)
    assert again.output == "done" and model.prompts[-1] == ["hello", "what is new?"]
    reread = SessionStore(tmp_path, "s1")
    said = [str(getattr(p, "content", "")) for m in reread.load_messages() for p in m.parts]
    assert said == ["hello", "done", "what is new?", "done"]
    assert reread.archives() == [] and [e for e in seen if e.layer == "store"] == []


async def test_a_turn_that_failed_after_a_tool_call_goes_on_from_its_steps() -> None:
    store, model, seen = InMemoryStore(), FailsOnce(fail_at=3), list[Event]()
    await failed_turn(store, model, "look up the tides")
    assert [type(m).__name__ for m in store.messages][-3:] == ["ModelRequest", "ModelResponse", "ModelRequest"]

    again = await agent_on(store, model, seen).run(None, message_history=store.load_messages())
    assert again.output == "done" and model.prompts[-1] == ["hello", "look up the tides"]
    assert model.calls == 4  # the call's result was sent, not the call made again
    assert store.archives == [] and [e for e in seen if e.layer == "store"] == []


async def test_the_prompt_given_again_is_sent_twice_as_the_page_warns() -> None:
    store, model = InMemoryStore(), FailsOnce(fail_at=2)
    await failed_turn(store, model, "what is new?")
    await agent_on(store, model, []).run("what is new?", message_history=store.load_messages())
    assert model.prompts[-1] == ["hello", "what is new?", "what is new?"]
    said = [str(p.content) for m in store.messages for p in m.parts if isinstance(p, UserPromptPart)]
    assert said == ["hello", "what is new?", "what is new?"]
