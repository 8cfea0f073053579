"""A store whose methods cannot take the arguments they are called with is refused where the manager
is made, in one line naming the method, as a `before_compact` or `token_counter` of the wrong shape is.

A `rewrite(self, messages)` (the boundary left out) was accepted: the run went on, every compaction
failed ("could not save the compacted history ... rewrite() takes 2 positional arguments but 3 were
given", an event or a logged warning) until the circuit breaker paused them, and the requests were
shrunk to fit instead. An `append(self)` or `load_messages(self, x)` ended the first run with
`HistoryNotSaved` / `HistoryNotLoaded` blaming the store's contents."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pytest
from pydantic_ai.messages import ModelMessage

from compact_agent.context import ContextManager, InMemoryStore


class Store:
    """A complete store: every method takes what it is called with."""

    def __init__(self) -> None:
        self.messages: list[ModelMessage] = []

    def append(self, messages: Sequence[ModelMessage]) -> None:
        self.messages += messages

    def archive(self) -> Path | None:
        return None

    def rewrite(self, boundary: dict[str, Any], messages: Sequence[ModelMessage]) -> None:
        self.messages = list(messages)


class RewriteWithoutBoundary(Store):
    def rewrite(self, messages: Sequence[ModelMessage]) -> None:  # type: ignore[override]
        self.messages = list(messages)


class AppendOfNothing(Store):
    def append(self) -> None:  # type: ignore[override]
        """Takes no messages to append: refused where the manager is made, never called."""


class ArchiveOfMessages(Store):
    def archive(self, messages: Sequence[ModelMessage]) -> Path | None:  # type: ignore[override]
        return None


class LoadOfAnId(Store):
    def load_messages(self, conversation_id: str) -> list[ModelMessage]:
        return []


@pytest.mark.parametrize(("store", "said"), [
    (RewriteWithoutBoundary(), "store.rewrite is called with two arguments, (boundary, messages), but "
                               "RewriteWithoutBoundary.rewrite takes (messages)"),
    (AppendOfNothing(), "store.append is called with one argument, (messages), but AppendOfNothing.append takes ()"),
    (ArchiveOfMessages(), "store.archive is called with no arguments, (), but ArchiveOfMessages.archive takes "
                          "(messages)"),
    (LoadOfAnId(), "store.load_messages is called with no arguments, (), but LoadOfAnId.load_messages takes "
                   "(conversation_id)"),
])
def test_a_method_of_the_wrong_shape_is_named(store: object, said: str) -> None:
    with pytest.raises(TypeError) as caught:
        ContextManager(window=8_000, store=store)  # type: ignore[arg-type]
    assert str(caught.value) == said


class Lenient(Store):
    """Defaults, keywords and *args are fine: the methods can be called as the manager calls them."""

    def archive(self, stamp: object = None) -> Path | None:
        return None

    def rewrite(self, *args: Any, **kwargs: Any) -> None:
        self.messages = list(kwargs.get("messages", args[-1] if args else []))


@pytest.mark.parametrize("store", [Store(), Lenient(), InMemoryStore()], ids=["plain", "lenient", "in-memory"])
def test_stores_that_take_the_arguments_are_accepted(store: object) -> None:
    ContextManager(window=8_000, store=store)  # type: ignore[arg-type]
