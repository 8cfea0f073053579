"""A store whose `load_messages()` raises reaches the caller as the library's `HistoryNotLoaded`, in
one line of words with the store's error as its cause, as a failed save is `HistoryNotSaved`. It
used to be the store's own exception (`OSError: [Errno 5] I/O error: '/data/x.db'`), raised from
inside the capability; and the failed read left the manager taking the store for empty, so the
next run appended the whole conversation to a store that held it."""

from __future__ import annotations

import errno
from collections.abc import Sequence

import pytest
from pydantic_ai import Agent
from pydantic_ai.messages import ModelMessage, ModelResponse, TextPart
from pydantic_ai.models.function import AgentInfo, FunctionModel

import compact_agent.context as lib
from compact_agent.context import ContextManager, HistoryNotLoaded, InMemoryStore
from compact_agent.context.testing import reply_to_library_request

BROKEN = OSError(errno.EIO, "Input/output error", "/data/chat.db")


class Flaky(InMemoryStore):
    """Holds a conversation; reading it back fails while `broken`."""

    def __init__(self) -> None:
        super().__init__()
        self.broken = False
        self.appends = 0

    def load_messages(self) -> list[ModelMessage]:
        if self.broken:
            raise BROKEN
        return super().load_messages()

    def append(self, messages: Sequence[ModelMessage]) -> None:
        self.appends += 1
        super().append(messages)


def model(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
    return reply_to_library_request(messages) or ModelResponse(parts=[TextPart("ok")])


async def test_a_store_that_cannot_be_read_raises_ours_in_words_and_is_read_again_next_time() -> None:
    store = Flaky()
    first = await Agent(FunctionModel(model), capabilities=[ContextManager(window=16_000, store=store)]).run("hello")
    held = list(store.messages)
    assert held == first.all_messages()

    store.broken = True  # a restart: a new manager on the store, which cannot be read now
    agent = Agent(FunctionModel(model), capabilities=[ContextManager(window=16_000, store=store)])
    appends = store.appends
    with pytest.raises(HistoryNotLoaded) as caught:
        await agent.run("again", message_history=first.all_messages())
    assert str(caught.value) == ("the store could not be read (Input/output error: /data/chat.db), so what it "
                                 "holds of the conversation is unknown: nothing was saved or sent")
    assert caught.value.cause is BROKEN and caught.value.__cause__ is BROKEN and caught.value.errno == errno.EIO
    assert isinstance(caught.value, OSError) and store.appends == appends

    store.broken = False  # it reads again: the next run appends only what is new
    second = await agent.run("again", message_history=first.all_messages())
    assert store.messages == second.all_messages() and store.messages[:len(held)] == held


def test_resume_from_a_store_that_cannot_be_read_raises_ours() -> None:
    store = Flaky()
    store.broken = True
    with pytest.raises(HistoryNotLoaded, match=r"^the store could not be read \(Input/output error"):
        ContextManager(window=16_000, store=store).resume()
    assert "HistoryNotLoaded" in lib.__all__
