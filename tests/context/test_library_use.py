"""What a developer adding the capability to their own agent can get wrong, refused where it is
given in one line without a Python repr: an async event handler (its coroutines were never run and
every event was lost, with one "never awaited" warning each), a wrong type where the docs promise a
`TypeError`, a list of tool names that is not one, `Prices(known="false")` (taken as known), an
`InMemoryStore` whose `max_archives` is a string (every compaction failed at its archive) and a
store whose `load_messages()` returns None ("'NoneType' object is not iterable")."""

from __future__ import annotations

import warnings
from collections.abc import Callable
from typing import Any

import pytest
from pydantic_ai import Agent
from pydantic_ai.messages import ModelMessage, ModelMessagesTypeAdapter, ModelResponse, TextPart, ToolCallPart
from pydantic_ai.models.function import AgentInfo, FunctionModel
from pydantic_ai.usage import RequestUsage, UsageLimits

from compact_agent.context import CompactionSettings, ContextManager, Event, InMemoryStore, Prices
from compact_agent.context.testing import reply_to_library_request


def _pages(n: int) -> Callable[[list[ModelMessage], AgentInfo], ModelResponse]:
    left = {"n": n}

    def model(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        usage = RequestUsage(input_tokens=len(ModelMessagesTypeAdapter.dump_json(messages)) // 4, output_tokens=20)
        if (reply := reply_to_library_request(messages, "Pages read.", usage=usage)) is not None:
            return reply
        if left["n"]:
            left["n"] -= 1
            return ModelResponse(parts=[ToolCallPart("fetch", {"n": left["n"]})], usage=usage)
        return ModelResponse(parts=[TextPart("done")], usage=usage)

    return model


def _agent(cm: ContextManager, pages: int = 12) -> Agent[None, str]:
    agent: Agent[None, str] = Agent(FunctionModel(_pages(pages)), capabilities=[cm])

    @agent.tool_plain
    def fetch(n: int) -> str:
        return f"{n}: " + " ".join(f"w-{n}-{i}" for i in range(250))

    return agent


# -- an async event handler ------------------------------------------------------------------------


def test_an_async_event_handler_is_refused_where_the_manager_is_made() -> None:
    events: list[Event] = []

    async def handler(event: Event) -> None:
        events.append(event)

    class Watcher:
        async def __call__(self, event: Event) -> None:
            events.append(event)

    for given in (handler, Watcher()):
        with pytest.raises(TypeError) as caught:
            ContextManager(window=6_000, event_handler=given)
        message = str(caught.value)
        assert message.startswith("event_handler must be a plain function") and "async" in message
        assert "\n" not in message


async def test_a_handler_that_returns_a_coroutine_is_counted_and_warns_once_per_event_in_words(
        caplog: pytest.LogCaptureFixture) -> None:
    """One the constructor cannot tell apart (a lambda around an async function): each coroutine is
    closed, not left for the garbage collector's "never awaited" warning, and counted."""
    async def handler(event: Event) -> None:
        return None

    cm = ContextManager(window=6_000, event_handler=lambda e: handler(e))
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # a "coroutine ... was never awaited" RuntimeWarning fails the test
        result = await _agent(cm).run("go", usage_limits=UsageLimits(request_limit=100))
    assert result.output == "done" and cm.compactions
    assert cm.handler_errors >= len(cm.compactions)
    assert "the event handler returned a coroutine" in caplog.text and "plain function" in caplog.text


# -- the wrong type is a TypeError, as the docs say --------------------------------------------------


@pytest.mark.parametrize(("given", "said"), [
    ({"max_output": "8192"}, "max_output must be a whole number, at least 1, not str '8192'"),
    ({"max_output": 8192.0}, "max_output must be a whole number, at least 1, not float 8192.0"),
    ({"max_conversations": 1.5}, "max_conversations must be a whole number, at least 1, not float 1.5"),
    ({"compactable_tools": [1, "read"]}, "compactable_tools must be a list of tool names, but item 1 is int, "
                                         "not a name"),
    ({"compactable_tools": 5}, "compactable_tools must be a list of tool names, not int"),
])
def test_an_argument_of_the_wrong_type_is_a_type_error_in_words(given: dict[str, Any], said: str) -> None:
    with pytest.raises(TypeError) as caught:
        ContextManager(window=16_000, **given)
    assert str(caught.value) == said


@pytest.mark.parametrize(("tools", "said"), [
    ([1, 2], "CompactionSettings.compactable_tools must be a list of tool names, but item 1 is int, not a name"),
    (["read", None], "CompactionSettings.compactable_tools must be a list of tool names, but item 2 is NoneType, "
                     "not a name"),
    (5, "CompactionSettings.compactable_tools must be a list of tool names, not int"),
])
def test_settings_name_a_tool_list_that_is_not_one_without_its_repr(tools: object, said: str) -> None:
    with pytest.raises(TypeError) as caught:
        CompactionSettings(compactable_tools=tools)  # type: ignore[arg-type]
    assert str(caught.value) == said


def test_settings_take_a_tuple_of_tool_names_as_the_manager_does() -> None:
    """`ContextManager(compactable_tools=("a",))` was taken, `CompactionSettings(compactable_tools=("a",))`
    refused as "not ('a',)"."""
    assert CompactionSettings(compactable_tools=("read", "grep")).compactable_tools == ("read", "grep")
    assert CompactionSettings(compactable_tools={"read", "grep"}).compactable_tools == ("grep", "read")
    assert CompactionSettings(compactable_tools=("read",)) == CompactionSettings(compactable_tools=["read"])


def test_settings_keep_the_tool_names_they_checked() -> None:
    """The names were kept as the list given: appending to it afterwards skipped the check (a number
    reached microcompact), and `hash(settings)` raised because a list cannot be hashed. They are kept
    as a tuple now, from any iterable of names."""
    given = ["read"]
    settings = CompactionSettings(compactable_tools=given)
    given.append("grep")
    assert settings.compactable_tools == ("read",)
    with pytest.raises(AttributeError):
        settings.compactable_tools.append(1)  # type: ignore[attr-defined]
    assert hash(settings) == hash(CompactionSettings(compactable_tools=("read",)))
    assert {settings} == {CompactionSettings(compactable_tools=("read",))}
    assert CompactionSettings(compactable_tools=(t for t in ["fetch", "read", "fetch"])).compactable_tools == \
        ("fetch", "read")
    assert CompactionSettings().compactable_tools == ()


@pytest.mark.parametrize("known", ["false", 0, None])
def test_prices_known_must_be_true_or_false(known: object) -> None:
    """`Prices(known="false")` (read from a config file) was taken as known: every decision priced."""
    with pytest.raises(TypeError) as caught:
        Prices(known=known)  # type: ignore[arg-type]
    assert str(caught.value) == f"Prices.known must be True or False, not {type(known).__name__} {known!r}"


# -- the in-memory store's limit -------------------------------------------------------------------


async def test_in_memory_store_max_archives_is_checked_where_it_is_made() -> None:
    """A string was taken, and every compaction then failed at the archive with
    "'>' not supported between instances of 'str' and 'int'"."""
    with pytest.raises(TypeError, match=r"^InMemoryStore\.max_archives must be a whole number, 0 or more, "
                                        r"not str '8'$"):
        InMemoryStore(max_archives="8")  # type: ignore[arg-type]
    with pytest.raises(ValueError, match=r"^InMemoryStore\.max_archives must be a whole number, 0 or more, not -1$"):
        InMemoryStore(max_archives=-1)
    store = InMemoryStore(max_archives=1)
    cm = ContextManager(window=6_000, store=store)
    await _agent(cm).run("go", usage_limits=UsageLimits(request_limit=100))
    assert len(cm.compactions) >= 2 and len(store.archives) == 1


# -- a store whose load_messages() says nothing -------------------------------------------------------


class NoneStore(InMemoryStore):
    """Returns None while it holds nothing, as a first draft of a store may."""

    def load_messages(self) -> list[ModelMessage]:
        return self.messages or None  # type: ignore[return-value]


async def test_a_store_whose_load_messages_returns_none_is_named_before_anything_is_sent() -> None:
    sent: list[int] = []

    def model(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        sent.append(len(messages))
        return ModelResponse(parts=[TextPart("hi")])

    store = NoneStore()
    cm = ContextManager(window=16_000, store=store)
    with pytest.raises(TypeError) as caught:
        await Agent(FunctionModel(model), capabilities=[cm]).run("hello")
    assert str(caught.value) == ("NoneStore.load_messages() must return a list of messages ([] when it holds none), "
                                 "not NoneType")
    assert sent == [] and store.messages == []
    with pytest.raises(TypeError, match=r"^NoneStore\.load_messages\(\) must return a list of messages"):
        ContextManager(window=16_000, store=NoneStore()).resume()
