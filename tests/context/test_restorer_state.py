"""The list of files changed says what became of each since, as the caller's `Restorer.state` tells.

A file the model changed stays listed through every compaction; the list said `a.py (edited)` of a
file the user had deleted or replaced by a folder since. The library knows no disk: its caller says
(the terminal agent's `Restoring.state`; the analyzer's replay says nothing, and lists as before).
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from pathlib import Path

from pydantic_ai.messages import (
    ModelMessage,
    ModelRequest,
    ModelResponse,
    TextPart,
    ToolCallPart,
    ToolReturnPart,
    UserPromptPart,
)

from compact_agent.context import Compactor, Limits
from compact_agent.context.compaction import ledger
from compact_agent.context.compaction.restore import Restorer


def _history() -> list[ModelMessage]:
    msgs: list[ModelMessage] = [ModelRequest.user_text_prompt("fix a.py and drop old.py")]
    for n, (tool, path) in enumerate([("edit_file", "a.py"), ("write_file", "b.py"), ("edit_file", "c.py")]):
        msgs += [ModelResponse(parts=[ToolCallPart(tool, {"path": path, "old_string": "x", "new_string": "y",
                                                          "content": "y"}, tool_call_id=f"e{n}")]),
                 ModelRequest(parts=[ToolReturnPart(tool, "ok", tool_call_id=f"e{n}")])]
    for k in range(8):
        msgs += [ModelResponse(parts=[ToolCallPart("glob", {"pattern": f"*{k}"}, tool_call_id=f"g{k}")]),
                 ModelRequest(parts=[ToolReturnPart("glob", "x " * 3000, tool_call_id=f"g{k}")])]
    return [*msgs, ModelResponse(parts=[TextPart("Done.")])]


def _listed(state: Callable[[str], str | None]) -> list[str]:
    async def summarize(messages: list[ModelMessage], prompt: str) -> str:
        return "<summary>Worked on the files.</summary>"

    compactor = Compactor(Limits.for_window(32_000, 4_000), Restorer(state=state, resolve=Path))
    result = asyncio.run(compactor.compact(_history(), summarize=summarize, archive=lambda: None))
    head = result.messages[0]
    assert isinstance(head, ModelRequest) and isinstance(head.parts[0], UserPromptPart)
    return [line for line in str(head.parts[0].content).splitlines() if line.startswith("- ") and ".py (" in line]


def test_each_file_listed_says_what_became_of_it() -> None:
    now = {"a.py": ledger.GONE, "c.py": "now a folder"}
    assert _listed(now.get) == ["- a.py (edited; deleted since)", "- b.py (written)", "- c.py (edited; now a folder)"]


def test_a_caller_that_says_nothing_lists_as_before() -> None:
    assert _listed(lambda path: None) == ["- a.py (edited)", "- b.py (written)", "- c.py (edited)"]


def test_a_callback_that_raises_fails_no_compaction() -> None:
    def broken(path: str) -> str | None:
        if path == "b.py":
            raise RuntimeError("no disk")
        return "now a folder"
    assert _listed(broken) == ["- a.py (edited; now a folder)", "- b.py (written)", "- c.py (edited; now a folder)"]


def test_a_file_the_model_deleted_itself_is_not_said_deleted_twice() -> None:
    assert ledger.render({"a.py": ["edited", "deleted"], "b.py": ["created"]}, {"a.py": ledger.GONE, "b.py": ledger.GONE}) \
        == ["- a.py (edited, deleted)", "- b.py (created; deleted since)"]
