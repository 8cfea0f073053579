"""The library calls a store's methods and a `token_counter` as the history changes and never
awaits them. An async store (a natural thing to write in an async app) was accepted: each call made
a coroutine nothing ran, so nothing was ever saved (a run ended "successfully" with an empty store,
and only a RuntimeWarning said so); an async counter failed every request. Both are refused where
the manager is made, in one line that says what to do instead."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pytest
from pydantic_ai.messages import ModelMessage

from compact_agent.context import ContextManager


class SyncStore:
    def __init__(self) -> None:
        self.messages: list[ModelMessage] = []

    def append(self, messages: Sequence[ModelMessage]) -> None:
        self.messages.extend(messages)

    def archive(self) -> Path | None:
        return None

    def rewrite(self, boundary: dict[str, Any], messages: Sequence[ModelMessage]) -> None:
        self.messages = list(messages)

    def load_messages(self) -> list[ModelMessage]:
        return list(self.messages)


class AsyncAppend(SyncStore):
    async def append(self, messages: Sequence[ModelMessage]) -> None:  # type: ignore[override]
        self.messages.extend(messages)


class AsyncLoad(SyncStore):
    async def load_messages(self) -> list[ModelMessage]:  # type: ignore[override]
        return list(self.messages)


@pytest.mark.parametrize(("store", "method"), [(AsyncAppend(), "append"), (AsyncLoad(), "load_messages")])
def test_a_store_with_an_async_method_is_refused(store: SyncStore, method: str) -> None:
    with pytest.raises(TypeError) as caught:
        ContextManager(window=16_000, store=store)
    assert str(caught.value) == (
        f"store methods must be plain functions (the pipeline calls them as the history changes, never awaits "
        f"them), but {type(store).__name__}.{method} is async: keep the history in an InMemoryStore and save "
        f"result.all_messages() to your async store after each run")


def test_an_async_token_counter_is_refused() -> None:
    async def count(messages: Sequence[ModelMessage]) -> int:
        return 1

    with pytest.raises(TypeError) as caught:
        ContextManager(window=16_000, token_counter=count)  # type: ignore[arg-type]
    assert str(caught.value) == ("token_counter must be a plain function (it is asked about each message as a "
                                 "request is measured, never awaited), not an async one")


def test_a_plain_store_and_counter_are_taken() -> None:
    ContextManager(window=16_000, store=SyncStore(), token_counter=len)
