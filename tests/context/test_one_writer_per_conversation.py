"""docs/library.md's SQLiteStore keeps one writer per conversation across processes.

Two worker processes serving one conversation at once (a user's double submit), each with the page's
SQLiteStore on one file, both returned success and left the store with the two turns mixed, duplicated
message numbers among them: the page said nothing of processes, and its `_insert` counted the rows and
inserted them outside a write lock. The page's store now offers `turn()`, a lock on the conversation
held across processes for the whole turn (a second raises `ConversationBusy`), numbers its messages
inside one write transaction, and refuses a duplicate number. Two store objects, each with its own
connection to the file, stand in for the two processes."""

from __future__ import annotations

import re
import sqlite3
from contextlib import AbstractContextManager
from pathlib import Path
from typing import Any

import pytest
from pydantic_ai import Agent
from pydantic_ai.messages import ModelMessage, ModelResponse, TextPart
from pydantic_ai.models.function import AgentInfo, FunctionModel

from compact_agent.context import ContextManager, ConversationBusy

DOC = Path(__file__).resolve().parents[2] / "docs" / "library.md"


def page_store() -> Any:
    (source,) = re.findall(r"^```python store\n(.*?)^```$", DOC.read_text(encoding="utf-8"), re.S | re.M)
    namespace: dict[str, Any] = {}
    exec(compile(source, "docs/library.md", "exec"), namespace)
    return namespace["SQLiteStore"]


def turn(store: Any, **kw: float) -> AbstractContextManager[None]:
    held: AbstractContextManager[None] = store.turn(**kw)
    return held


def answer(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
    return ModelResponse(parts=[TextPart("answer")])


async def test_a_second_process_turn_of_a_conversation_is_busy_until_the_first_ends(tmp_path: Path) -> None:
    store_class = page_store()
    db = tmp_path / "chats.db"
    first, second, other = store_class(db, "c42"), store_class(db, "c42"), store_class(db, "c7")
    with turn(first):
        with pytest.raises(ConversationBusy) as caught:
            turn(second).__enter__()
        assert caught.value.conversation_id == "c42"
        with turn(other):  # another conversation in the same file is not held: its turn writes
            written = [ModelResponse(parts=[TextPart("c7's")])]
            other.append(written)
            assert other.load_messages() == written
        agent = Agent(FunctionModel(answer), capabilities=[ContextManager(window=64_000, store=first)])
        done = await agent.run("hello", message_history=first.load_messages())
    with turn(second):  # the first's turn is over: the next one goes on from what it saved
        assert second.load_messages() == done.all_messages()


def test_a_turn_whose_lease_ended_can_be_taken_over(tmp_path: Path) -> None:
    """A process killed in its turn holds the conversation only until its lease ends."""
    store_class = page_store()
    db = tmp_path / "chats.db"
    killed, next_one = store_class(db, "c42"), store_class(db, "c42")
    held = turn(killed, lease_s=-1)
    held.__enter__()  # never left: the process died in its turn
    with turn(next_one):  # taken over: its turn writes
        written = [ModelResponse(parts=[TextPart("next")])]
        next_one.append(written)
        assert next_one.load_messages() == written


def test_two_writers_cannot_both_save_a_message_n(tmp_path: Path) -> None:
    store_class = page_store()
    db = tmp_path / "chats.db"
    store = store_class(db, "c42")
    store.append([ModelResponse(parts=[TextPart("one")])])
    raw = sqlite3.connect(db)
    with pytest.raises(sqlite3.IntegrityError):
        raw.execute("INSERT INTO messages VALUES ('c42', 0, '[]')")
