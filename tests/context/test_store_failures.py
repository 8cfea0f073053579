"""A store that fails to save reaches the library's user as `HistoryNotSaved`, never as the store's
own exception from deep inside the capability: an append (before a request, or at the run's end),
a rewrite of a changed history, or a store of the user's own raising whatever it raises. The error
says in one line what was not saved and why, keeps the store's error as `__cause__`, and carries
the history that was not saved; nothing is sent that could not be saved first, and the next run
saves what the store lacks. A compaction whose rewrite fails is a `CompactionError`: the history
stays what the store holds."""

from __future__ import annotations

import errno
import sqlite3
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pytest
from pydantic_ai import Agent
from pydantic_ai.messages import ModelMessage, ModelRequest, ModelResponse, TextPart, UserPromptPart
from pydantic_ai.models.function import AgentInfo, FunctionModel

from compact_agent.context import CompactionError, ContextManager, HistoryNotSaved, InMemoryStore
from compact_agent.context.testing import reply_to_library_request

FULL = OSError(errno.ENOSPC, "No space left on device", "/data/chat.jsonl")


class Failing(InMemoryStore):
    """An in-memory store whose `fail` step ("append", "rewrite", "archive") raises `error`, from
    its `after`-th call of that step on, until `error` is None; `partial` appends the first message
    of a batch before failing (a write cut short)."""

    def __init__(self, fail: str, error: BaseException | None, after: int = 1, partial: bool = False) -> None:
        super().__init__()
        self.fail, self.error, self.after, self.partial = fail, error, after, partial
        self.calls = {"append": 0, "rewrite": 0, "archive": 0}

    def _check(self, step: str, messages: Sequence[ModelMessage] = ()) -> None:
        self.calls[step] += 1
        if step == self.fail and self.error is not None and self.calls[step] >= self.after:
            if self.partial and messages:
                super().append(messages[:1])
            raise self.error

    def append(self, messages: Sequence[ModelMessage]) -> None:
        self._check("append", messages)
        super().append(messages)

    def archive(self) -> Path | None:
        self._check("archive")
        return super().archive()

    def rewrite(self, boundary: dict[str, Any], messages: Sequence[ModelMessage]) -> None:
        self._check("rewrite")
        super().rewrite(boundary, messages)


class Model:
    def __init__(self) -> None:
        self.requests = 0

    def __call__(self, messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        self.requests += 1
        return reply_to_library_request(messages) or ModelResponse(parts=[TextPart(f"answer {self.requests}")])


def history(turns: int) -> list[ModelMessage]:
    return [m for _ in range(turns) for m in (ModelRequest(parts=[UserPromptPart("question " * 100)]),
                                              ModelResponse(parts=[TextPart("answer " * 100)]))]


def texts(messages: Sequence[ModelMessage]) -> list[str]:
    return [str(getattr(p, "content", "")) for m in messages for p in m.parts]


async def test_an_append_that_fails_before_a_request_stops_the_run_in_one_line_and_sends_nothing() -> None:
    store, model = Failing("append", FULL), Model()
    agent = Agent(FunctionModel(model), capabilities=[ContextManager(window=64_000, store=store)])
    with pytest.raises(HistoryNotSaved) as caught:
        await agent.run("hello")
    e = caught.value
    assert str(e) == ("the store could not save 1 new message of the conversation (No space left on device: "
                      "/data/chat.jsonl): it holds the conversation as it was before them")
    assert e.__cause__ is FULL and e.cause is FULL and e.errno == errno.ENOSPC and isinstance(e, OSError)
    assert model.requests == 0 and store.messages == []  # nothing sent that was not saved first
    assert texts(e.messages) == ["hello"]
    store.error = None  # space freed: the run sent again from the history it hands back saves it all
    result = await agent.run(message_history=e.messages)
    assert store.messages == result.all_messages() and texts(store.messages) == ["hello", "answer 1"]


async def test_a_store_of_the_users_own_raising_anything_is_the_same_error() -> None:
    store, model = Failing("append", sqlite3.OperationalError("database is locked")), Model()
    agent = Agent(FunctionModel(model), capabilities=[ContextManager(window=64_000, store=store)])
    with pytest.raises(HistoryNotSaved) as caught:
        await agent.run("hello")
    assert str(caught.value).endswith("(database is locked): it holds the conversation as it was before them")
    assert isinstance(caught.value.__cause__, sqlite3.OperationalError) and caught.value.errno is None
    assert model.requests == 0


async def test_an_append_that_fails_at_the_runs_end_hands_back_the_answer_it_did_not_save() -> None:
    store, model = Failing("append", FULL, after=2), Model()  # the request's append works, the answer's fails
    cm = ContextManager(window=64_000, store=store)
    agent = Agent(FunctionModel(model), capabilities=[cm])
    with pytest.raises(HistoryNotSaved) as caught:
        await agent.run("hello")
    assert "could not save 1 new message" in str(caught.value)
    assert texts(caught.value.messages) == ["hello", "answer 1"]  # not lost: the caller has it
    assert texts(store.messages) == ["hello"]
    store.error = None  # the next run, given that history, saves the answer the store lacks
    result = await agent.run("again", message_history=caught.value.messages)
    assert store.messages == result.all_messages()
    assert texts(store.messages) == ["hello", "answer 1", "again", "answer 2"]


async def test_a_write_cut_short_is_not_saved_twice_by_the_next_run() -> None:
    store, model = Failing("append", FULL, after=3, partial=True), Model()
    agent = Agent(FunctionModel(model), capabilities=[ContextManager(window=64_000, store=store)])
    first = await agent.run("one")
    with pytest.raises(HistoryNotSaved) as caught:  # the prompt's request written, then the disk filled
        await agent.run("two", message_history=first.all_messages())
    assert texts(store.messages) == ["one", "answer 1", "two"] and model.requests == 1
    store.error = None
    again = await agent.run(message_history=caught.value.messages)
    assert texts(store.messages) == texts(again.all_messages()) == ["one", "answer 1", "two", "answer 2"]
    assert store.archives == [] and store.boundaries == []  # what it had was appended to, not rewritten


async def test_a_changed_history_the_store_could_not_rewrite_is_not_saved_and_not_sent() -> None:
    store, model = Failing("rewrite", sqlite3.OperationalError("disk I/O error")), Model()
    agent = Agent(FunctionModel(model), capabilities=[ContextManager(window=64_000, store=store)])
    first = await agent.run("one")
    second = await agent.run("two", message_history=first.all_messages())
    held, sent = list(store.messages), model.requests
    with pytest.raises(HistoryNotSaved) as caught:  # the second answer regenerated
        await agent.run("two, again", message_history=first.all_messages())
    assert str(caught.value) == ("the conversation changed, and the store could not rewrite it after archiving "
                                 "what it held (disk I/O error): it still holds that, and the changed conversation "
                                 "is not saved")
    assert isinstance(caught.value.__cause__, sqlite3.OperationalError)
    assert store.messages == held == second.all_messages() and model.requests == sent


async def test_a_compaction_whose_rewrite_fails_is_a_compaction_error_and_changes_nothing() -> None:
    store = Failing("rewrite", sqlite3.OperationalError("disk I/O error"))
    cm, given = ContextManager(window=8_000, store=store), history(30)
    with pytest.raises(CompactionError) as caught:
        await cm.compact_now(given, model=FunctionModel(Model()))
    assert str(caught.value) == ("could not save the compacted history, so the history was not rewritten: "
                                 "disk I/O error")
    assert isinstance(caught.value.__cause__, sqlite3.OperationalError)
    assert store.messages == given and cm.compactions == []


async def test_an_archive_of_the_users_own_raising_anything_abandons_the_compaction() -> None:
    store = Failing("archive", sqlite3.OperationalError("database is locked"))
    cm, given = ContextManager(window=8_000, store=store), history(30)
    with pytest.raises(CompactionError) as caught:
        await cm.compact_now(given, model=FunctionModel(Model()))
    assert str(caught.value) == ("could not archive the transcript, so the session was not rewritten: "
                                 "database is locked")
    assert isinstance(caught.value.__cause__, sqlite3.OperationalError)
    assert store.messages == given and store.boundaries == []
