"""docs/library.md's SQLiteStore names the row it cannot read.

A row of the messages table that holds no message (a body overwritten, a migration gone wrong) made
`load_messages()` raise pydantic's report of every field, many lines naming no row, and the caller (or
the `HistoryNotLoaded` a ContextManager raises from it) could not tell which message was bad. The page's
store now raises one line naming the conversation and the row's seq, and what is wrong."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest
from pydantic_ai.messages import ModelRequest, ModelResponse, TextPart, UserPromptPart

from compact_agent.context import ContextManager, HistoryNotLoaded

DOC = Path(__file__).resolve().parents[2] / "docs" / "library.md"


def page_store(db: Path, conversation: str) -> Any:
    (source,) = re.findall(r"^```python store\n(.*?)^```$", DOC.read_text(encoding="utf-8"), re.S | re.M)
    namespace: dict[str, Any] = {}
    exec(compile(source, "docs/library.md", "exec"), namespace)
    store = namespace["SQLiteStore"](db, conversation)
    store.append([ModelRequest(parts=[UserPromptPart("hi")]), ModelResponse(parts=[TextPart("hello")]),
                  ModelRequest(parts=[UserPromptPart("and?")])])
    return store


@pytest.mark.parametrize(("body", "why"), [
    ("garbage", "Invalid JSON: expected value at line 1 column 1"),
    ('[{"kind": "note", "parts": []}]',
     "Input tag 'note' found using 'kind' does not match any of the expected tags: 'request', 'response'"),
])
def test_a_row_that_holds_no_message_is_named_in_one_line(tmp_path: Path, body: str, why: str) -> None:
    store = page_store(tmp_path / "chats.db", "c42")
    with store.db:
        store.db.execute("UPDATE messages SET body = ? WHERE conversation = 'c42' AND seq = 1", (body,))

    with pytest.raises(ValueError) as caught:
        store.load_messages()
    line = f"the message saved at seq 1 of conversation 'c42' cannot be read: {why}"
    assert str(caught.value) == line

    with pytest.raises(HistoryNotLoaded) as refused:  # as a ContextManager reports it
        ContextManager(window=64_000, store=store).resume()
    assert str(refused.value) == (f"the store could not be read ({line}), so what it holds of the conversation is "
                                  "unknown: nothing was saved or sent")
